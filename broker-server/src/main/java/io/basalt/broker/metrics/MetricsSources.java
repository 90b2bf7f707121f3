package io.basalt.broker.metrics;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.ha.SlaveStatus;
import io.basalt.store.MessageStore;

/**
 * The broker state the metrics read when scraped or sampled (never on the put path).
 *
 * @param storePath   a directory on the CommitLog's disk (disk usage ratio)
 * @param connections open client connections of the remoting server
 * @param heldPulls   long-poll pull requests currently held
 * @param executors   the request executors whose queue depth and SYSTEM_BUSY answers are reported
 * @param haRole      this broker's replication role (ASYNC_MASTER, SYNC_MASTER, SLAVE)
 * @param haSlaves    the slaves as this master sees them (empty on a slave or without slaves)
 * @param serviceErrors unexpected errors of the service threads outside the store (long polling, HA),
 *                    by thread name; the store's own come from {@link MessageStore#serviceErrorCounts()}
 */
public record MetricsSources(MessageStore store, TopicConfigManager topics, ConsumerOffsetManager offsets,
                             Path storePath, IntSupplier connections, IntSupplier heldPulls,
                             List<ExecutorSource> executors, Supplier<String> haRole,
                             Supplier<List<SlaveStatus>> haSlaves, Supplier<Map<String, Long>> serviceErrors) {

    /** One request executor: {@code name} is the label value ("send", "pull"). */
    public record ExecutorSource(String name, IntSupplier queueSize, LongSupplier systemBusy) {
    }
}
