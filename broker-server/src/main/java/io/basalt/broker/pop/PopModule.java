package io.basalt.broker.pop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.MessageStore;

/**
 * POP as the broker wires it: the revive topic ({@code rmq_sys_REVIVE_LOG_<cluster>}, {@code reviveQueueNum}
 * queues), the {@link PopService} the processors and a gRPC layer call, the long-polling table, the revive threads
 * and the counters behind the metrics.
 */
public final class PopModule {
    /** Longest a pop or notification waits, whatever the client asks: below the 5.2.0 clients' 25 s socket timeout. */
    static final long MAX_POLL_MS = 20_000;
    /** RocketMQ's maxPopPollingSize. */
    static final int MAX_PARKED = 100_000;
    /** RocketMQ writes consumerOrderInfo.json with the consumer offsets (every 5 s by default). */
    static final long ORDER_INFO_PERSIST_SECONDS = 5;
    private static final Logger log = LoggerFactory.getLogger(PopModule.class);

    /**
     * @param brokerName     this broker's name (receipts name it)
     * @param reviveQueueNum revive queues and revive threads
     * @param reviveInterval ms between two rounds of a revive thread
     */
    public record Settings(String brokerClusterName, String brokerName, int reviveQueueNum, long reviveInterval) {
    }

    private final PopService service;
    private final PopReviveService revive;
    private final PopLongPolling polling;
    private final PopCounters counters = new PopCounters();
    private final String reviveTopic;
    private final int reviveQueueNum;
    private final MessageStore store;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final ConsumerOffsetManager offsets;
    private final java.util.function.BooleanSupplier writable;
    private final ScheduledExecutorService orderInfoPersister =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("PopOrderInfoPersister"));

    public PopModule(MessageStore store, TopicConfigManager topics, SubscriptionGroupManager groups,
                     ConsumerOffsetManager offsets, ConsumerFilters filters, InetSocketAddress storeHost,
                     RetryCounts retryCounts, java.util.function.BooleanSupplier writable, Settings settings) {
        this(store, topics, groups, offsets, filters, storeHost, retryCounts, writable, settings,
            OrderInfoTable.inMemory());
    }

    /**
     * @param orders the order-POP state, written every {@value #ORDER_INFO_PERSIST_SECONDS} s and at shutdown
     */
    public PopModule(MessageStore store, TopicConfigManager topics, SubscriptionGroupManager groups,
                     ConsumerOffsetManager offsets, ConsumerFilters filters, InetSocketAddress storeHost,
                     RetryCounts retryCounts, java.util.function.BooleanSupplier writable, Settings settings,
                     OrderInfoTable orders) {
        this.reviveTopic = PopConstants.reviveTopic(settings.brokerClusterName());
        this.reviveQueueNum = settings.reviveQueueNum();
        this.store = store;
        this.topics = topics;
        this.groups = groups;
        this.offsets = offsets;
        this.writable = writable;
        this.polling = new PopLongPolling(MAX_PARKED);
        this.service = new PopService(store, topics, groups, offsets, filters, storeHost,
            () -> store.timerMessages().enabled(), writable, System::currentTimeMillis, counters, polling,
            new PopService.Settings(settings.brokerName(), reviveTopic, settings.reviveQueueNum(), MAX_POLL_MS), orders);
        orderInfoPersister.scheduleWithFixedDelay(this::persistOrderInfo, ORDER_INFO_PERSIST_SECONDS,
            ORDER_INFO_PERSIST_SECONDS, TimeUnit.SECONDS);
        MessageReviver reviver = new MessageReviver(store, topics, groups, offsets, storeHost, counters, retryCounts);
        this.revive = new PopReviveService(settings.reviveQueueNum(), settings.reviveInterval(),
            q -> new ReviveQueueReader(store, offsets, reviveTopic, q, reviver,
                () -> System.currentTimeMillis() - store.timerMessages().dequeueLagMillis()));
        try {
            topics.createIfAbsent(reviveTopic, settings.reviveQueueNum(), Perm.READ | Perm.WRITE);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("creating the revive topic " + reviveTopic + " failed", e);
        }
    }

    /**
     * At start-up, once the store is recovered and before POP is served: raises every POP offset that
     * consumerOffset.json lost behind stored checkpoints ({@link PopOffsetRecovery}), writes the offsets, and from
     * then on keeps {@code config/popCheckPointScanStart.json} with each write of consumerOffset.json.
     *
     * @return the number of (topic, group, queue) offsets raised
     */
    public int recoverOffsets(Path configDir) {
        JsonConfigFile scanStartFile = CheckPointScanStart.file(configDir);
        Optional<CheckPointScanStart> start;
        try {
            start = CheckPointScanStart.load(scanStartFile);
        } catch (IOException e) {
            // a derived file: reading every CK instead is slower, never wrong
            log.warn("{} unreadable ({}): reading every stored POP checkpoint instead", scanStartFile.path(),
                e.getMessage());
            start = Optional.empty();
        }
        if (start.isEmpty()) {
            log.info("no {}: reading every stored POP checkpoint to check the POP offsets", CheckPointScanStart.FILE_NAME);
        }
        int raised = new PopOffsetRecovery(store, offsets, topics, reviveTopic, reviveQueueNum)
            .recover(start).size();
        offsets.snapshotCompanion(() -> {
            if (!writable.getAsBoolean()) {
                // a slave's offsets are the master's, copied at some earlier moment than its own queue ends: the
                // scan start written while this broker was master (or none: a full scan) stays the safe one
                return () -> { };
            }
            CheckPointScanStart scanStart = service.checkPointScanStart();
            return () -> scanStart.store(scanStartFile);
        });
        try {
            offsets.persist();
        } catch (IOException e) {
            // A full disk must not stop the start (the store opens with no free space). The raised offsets are
            // served from memory and the periodic write retries; until one succeeds, the scan start on disk is the
            // old one, so a crash in between raises them again.
            log.warn("POP offsets checked at start-up not written ({}); the periodic consumer offset write retries",
                e.getMessage());
        }
        return raised;
    }

    public PopService service() {
        return service;
    }

    public PopCounters counters() {
        return counters;
    }

    public String reviveTopic() {
        return reviveTopic;
    }

    /** Told of every dispatched message: wakes pops waiting for its topic. */
    public void onArrival(String topic) {
        service.onArrival(topic);
    }

    /** Starts (master) or stops (slave, fenced) re-delivery. */
    public void setReviving(boolean master) {
        if (master) {
            revive.start();
        } else {
            revive.stop();
        }
    }

    public int parkedCount() {
        return polling.parkedCount();
    }

    public void shutdown() {
        revive.stop();
        polling.shutdown();
        orderInfoPersister.shutdownNow();
        persistOrderInfo();
    }

    private void persistOrderInfo() {
        try {
            service.persistOrderInfo();
        } catch (IOException | RuntimeException e) {
            log.error("persisting the order POP state failed: {}", e.toString());
        }
    }
}
