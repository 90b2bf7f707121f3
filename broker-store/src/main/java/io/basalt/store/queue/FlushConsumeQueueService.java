package io.basalt.store.queue;

import java.io.IOException;

import io.basalt.store.index.IndexService;
import io.basalt.store.service.ServiceThread;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forces the ConsumeQueue and index files every {@code flushIntervalConsumeQueue} ms (RocketMQ's
 * FlushConsumeQueueService), and once more at shutdown. They are caches of the CommitLog, so a lost
 * tail is rebuilt by recovery; flushing bounds how much must be rebuilt after a power loss.
 */
public final class FlushConsumeQueueService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(FlushConsumeQueueService.class);

    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final long intervalMs;

    /** @param index null when indexing is off */
    public FlushConsumeQueueService(ConsumeQueueStore queues, IndexService index, long intervalMs) {
        super("FlushConsumeQueueService");
        this.queues = queues;
        this.index = index;
        this.intervalMs = intervalMs;
    }

    @Override
    public int doWork() {
        try {
            queues.flush();
            if (index != null) {
                index.flush();
            }
        } catch (IOException e) {
            // The CommitLog stays the source of truth; recovery rebuilds what did not reach the disk.
            LOG.error("Flushing consume queues or index failed: {}", e.toString());
        }
        return 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    @Override
    protected void onShutdown() {
        doWork();
    }
}
