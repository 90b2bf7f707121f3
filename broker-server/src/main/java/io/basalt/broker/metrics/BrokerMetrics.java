package io.basalt.broker.metrics;

import io.basalt.store.MessageStore;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.basalt.broker.metrics.ConsumerLag.QueueLag;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.ha.SlaveStatus;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.FlushObserver;
import io.basalt.store.MessageStore;
import io.basalt.store.TimerMessages;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.basalt.broker.schedule.ScheduleMessageService;
import io.basalt.broker.transaction.TransactionCounters;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The broker's Prometheus metrics, in a registry of their own. The put and pull paths report through
 * {@link TrafficObserver} (per-topic {@link LongAdder}s found in a map lookup that allocates nothing
 * once the topic is known, a lock-free histogram); the flush thread through {@link #flushObserver()};
 * everything else — offsets, disk, executor queues, consumer lag, HA, connections, the JVM — is read
 * from {@link MetricsSources} by callbacks when scraped.
 *
 * <p>Metric names follow the Prometheus conventions: {@code basalt_} prefix, base units in the name
 * ({@code _seconds}, {@code _bytes}, {@code _ratio}), {@code _total} on counters.
 */
public final class BrokerMetrics implements TrafficObserver {
    static final double[] PUT_LATENCY_BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
        0.1, 0.25, 0.5, 1, 2.5, 5};
    static final double[] FLUSH_LATENCY_BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
        1, 2.5};
    static final double[] GROUP_SIZE_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    static final double[] LATENESS_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 300};

    /** Stored messages and their body bytes of one topic. */
    private static final class TopicStats {
        final LongAdder messages = new LongAdder();
        final LongAdder bytes = new LongAdder();
    }

    private final MetricsSources sources;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ConcurrentHashMap<String, TopicStats> byTopic = new ConcurrentHashMap<>();
    private final LongAdder[] putStatus = new LongAdder[PutMessageStatus.values().length];
    private final LongAdder messagesPut = new LongAdder();
    private final LongAdder messagesPulled = new LongAdder();
    private final LongAdder pullRequests = new LongAdder();
    private final Histogram putLatency;
    private final Histogram flushLatency;
    private final Histogram flushGroupSize;
    private final RetryCounts retryCounts = new RetryCounts();
    private final RocketMqTraffic rocketMqTraffic = new RocketMqTraffic();
    private volatile io.basalt.broker.client.ClientManager clients;
    private final Histogram deliveryLateness;
    private volatile java.util.function.Supplier<List<ScheduleMessageService.LevelStatus>> delayLevels = List::of;
    private volatile TransactionCounters transactions = new TransactionCounters();
    private volatile HaMetrics ha;

    public BrokerMetrics(MetricsSources sources) {
        this.sources = sources;
        for (int i = 0; i < putStatus.length; i++) {
            putStatus[i] = new LongAdder();
        }
        putLatency = Histogram.builder().name("basalt_put_latency_seconds")
            .help("Time from a send request's processing start to the store's answer")
            .classicOnly().classicUpperBounds(PUT_LATENCY_BUCKETS).withoutExemplars().register(registry);
        flushLatency = Histogram.builder().name("basalt_flush_latency_seconds")
            .help("Duration of one commit + force of the CommitLog")
            .classicOnly().classicUpperBounds(FLUSH_LATENCY_BUCKETS).withoutExemplars().register(registry);
        flushGroupSize = Histogram.builder().name("basalt_flush_group_size")
            .help("Synchronous puts served by one group-commit force (SYNC_FLUSH)")
            .classicOnly().classicUpperBounds(GROUP_SIZE_BUCKETS).withoutExemplars().register(registry);
        deliveryLateness = Histogram.builder().name("basalt_delivery_lateness_seconds")
            .help("How long after its due time a delayed (kind delay) or timer (kind timer) message was stored in its"
                + " real topic").labelNames("kind")
            .classicOnly().classicUpperBounds(LATENESS_BUCKETS).withoutExemplars().register(registry);
        registerPutCounters();
        registerStoreGauges();
        registerServingGauges();
        registerConsumerLag();
        registerHa();
        registerTimer();
        registerRetries();
        JvmMetrics.builder().register(registry);
    }

    private void registerPutCounters() {
        CounterWithCallback.builder().name("basalt_messages_put").help("Messages stored, by topic")
            .labelNames("topic")
            .callback(cb -> byTopic.forEach((topic, s) -> cb.call(s.messages.sum(), topic))).register(registry);
        CounterWithCallback.builder().name("basalt_put_bytes").help("Message body bytes stored, by topic")
            .labelNames("topic")
            .callback(cb -> byTopic.forEach((topic, s) -> cb.call(s.bytes.sum(), topic))).register(registry);
        CounterWithCallback.builder().name("basalt_put_requests").help("Put requests (a batch is one), by store status")
            .labelNames("status")
            .callback(cb -> {
                for (PutMessageStatus s : PutMessageStatus.values()) {
                    cb.call(putStatus[s.ordinal()].sum(), s.name());
                }
            }).register(registry);
        CounterWithCallback.builder().name("basalt_page_cache_busy_rejections")
            .help("Puts refused because the CommitLog lock was held too long (OS_PAGE_CACHE_BUSY, answered SYSTEM_BUSY)")
            .callback(cb -> cb.call(putStatus[PutMessageStatus.OS_PAGE_CACHE_BUSY.ordinal()].sum())).register(registry);
        CounterWithCallback.builder().name("basalt_pull_requests").help("Pull requests served (each wake-up of a held pull counts)")
            .callback(cb -> cb.call(pullRequests.sum())).register(registry);
        CounterWithCallback.builder().name("basalt_messages_pulled").help("Messages returned by pulls")
            .callback(cb -> cb.call(messagesPulled.sum())).register(registry);
    }

    private void registerStoreGauges() {
        MessageStore log = sources.store();
        gauge("basalt_commitlog_min_offset_bytes", "Lowest CommitLog offset still on disk", () -> log.getMinPhyOffset());
        gauge("basalt_commitlog_max_offset_bytes", "CommitLog offset after the last appended record", () -> log.getMaxPhyOffset());
        gauge("basalt_commitlog_flushed_offset_bytes", "CommitLog offset forced to disk", () -> log.flushedOffset());
        gauge("basalt_commitlog_committed_offset_bytes", "CommitLog offset committed to the file (write buffer)",
            () -> log.committedOffset());
        gauge("basalt_disk_used_ratio", "Used fraction of the CommitLog's disk", this::diskUsedRatio);
        MessageStore store = sources.store();
        gauge("basalt_store_fail_stopped",
            "1 once the store turned read-only after a write failure or a durability-critical service error",
            () -> store.isFailStopped() ? 1 : 0);
        gauge("basalt_dispatch_stopped",
            "1 while the dispatcher is stopped (a consume-queue or index write failed): puts are refused meanwhile",
            () -> store.dispatchStoppedReason() == null ? 0 : 1);
        CounterWithCallback.builder().name("basalt_dispatch_stopped_rejections")
            .help("Puts refused (SERVICE_NOT_AVAILABLE) because the dispatcher was stopped")
            .callback(cb -> cb.call(store.dispatchStoppedRefusals())).register(registry);
        CounterWithCallback.builder().name("basalt_commitlog_files_deleted_early")
            .help("CommitLog files retention deleted before fileReservedTime (forced clean under disk pressure)")
            .callback(cb -> cb.call(store.commitLogFilesDeletedEarly())).register(registry);
        gauge("basalt_dispatch_write_blocked",
            "1 while the dispatcher cannot write ConsumeQueue entries or index keys (full disk); puts are refused meanwhile",
            () -> store.dispatchWriteBlocked() != null ? 1 : 0);
        CounterWithCallback.builder().name("basalt_corrupt_records_read")
            .help("CommitLog records a read found corrupt (CRC mismatch) and did not serve; a retried record counts again")
            .callback(cb -> cb.call(store.corruptRecordsRead())).register(registry);
        CounterWithCallback.builder().name("basalt_service_errors")
            .help("Unexpected errors of a service thread's rounds (a durability-critical one also fail-stops the store)")
            .labelNames("service")
            .callback(cb -> serviceErrors().forEach((service, n) -> cb.call(n, service))).register(registry);
    }

    /** Errors by service thread: the store's, then the broker's (long polling, HA). */
    Map<String, Long> serviceErrors() {
        Map<String, Long> all = new TreeMap<>(sources.store().serviceErrorCounts());
        sources.serviceErrors().get().forEach((service, n) -> all.merge(service, n, Long::sum));
        return all;
    }

    private void registerServingGauges() {
        gauge("basalt_connections", "Open client connections", () -> sources.connections().getAsInt());
        gauge("basalt_broker_permission", "brokerPermission: READ 4, WRITE 2, INHERIT 1 (6 reads and writes)",
            () -> sources.topics().brokerPermission().permission());
        gauge("basalt_pull_held_requests", "Long-polling pull requests currently held",
            () -> sources.heldPulls().getAsInt());
        GaugeWithCallback.builder().name("basalt_executor_queue_depth").help("Requests waiting in an executor's queue")
            .labelNames("executor")
            .callback(cb -> sources.executors().forEach(e -> cb.call(e.queueSize().getAsInt(), e.name())))
            .register(registry);
        CounterWithCallback.builder().name("basalt_executor_system_busy")
            .help("Requests answered SYSTEM_BUSY by an executor (queue full or waited too long)").labelNames("executor")
            .callback(cb -> sources.executors().forEach(e -> cb.call(e.systemBusy().getAsLong(), e.name())))
            .register(registry);
    }

    /**
     * Registers {@code basalt_remoting_connections_closed_total{reason}}: connections the remoting servers closed,
     * by reason (malformed_frame, partial_frame_budget, frame_timeout, unwritable, idle). Call once, at construction
     * of the broker; {@code closes} is read on each scrape.
     */
    public void registerConnectionCloses(java.util.function.Supplier<Map<String, Long>> closes) {
        CounterWithCallback.builder().name("basalt_remoting_connections_closed")
            .help("Connections the broker closed, by reason").labelNames("reason")
            .callback(cb -> closes.get().forEach((reason, n) -> cb.call(n, reason)))
            .register(registry);
    }

    private void registerConsumerLag() {
        GaugeWithCallback.builder().name("basalt_consumer_lag_messages")
            .help("Queue max offset minus the group's committed offset").labelNames("group", "topic", "queue")
            .callback(cb -> consumerLag().forEach(l -> cb.call(l.lag(), l.group(), l.topic(),
                Integer.toString(l.queueId()))))
            .register(registry);
    }

    /**
     * The timer wheel ({@link TimerMessages#stats()}, read at each scrape): what it holds, how far enqueue and
     * dequeue are behind, and what it did since start. All zero with {@code timerWheelEnable=false}. On a slave the
     * dequeue lag grows: a slave enqueues but does not deliver.
     */
    private void registerTimer() {
        TimerMessages timers = sources.store().timerMessages();
        gauge("basalt_timer_pending_messages", "Timer messages in the wheel not yet delivered (cancels subtract)",
            () -> timers.stats().pending());
        gauge("basalt_timer_enqueue_lag_messages",
            "rmq_sys_wheel_timer entries not yet in the wheel (RocketMQ's timerOffsetBehind)",
            () -> timers.stats().enqueueLagMessages());
        gauge("basalt_timer_enqueue_lag_seconds", "Age of the oldest rmq_sys_wheel_timer entry not yet in the wheel",
            () -> timers.stats().enqueueLagMillis() / 1000.0);
        gauge("basalt_timer_dequeue_lag_seconds",
            "How far the wheel's read clock is behind now (RocketMQ's timerReadBehind); grows on a slave",
            () -> timers.stats().dequeueLagMillis() / 1000.0);
        counter("basalt_timer_enqueued", "Entries put into the timer wheel since start", () -> timers.stats().enqueued());
        counter("basalt_timer_delivered", "Timer messages put back into their real topic since start",
            () -> timers.stats().delivered());
        counter("basalt_timer_cancelled", "Timer messages a TIMER_DEL_UNIQKEY message cancelled since start",
            () -> timers.stats().cancelled());
        counter("basalt_timer_dropped_entries",
            "Timer-log entries dropped since start because their CommitLog record is gone or unreadable",
            () -> timers.stats().droppedEntries());
    }

    private void registerRetries() {
        CounterWithCallback.builder().name("basalt_consumer_retries")
            .help("Messages consumers gave back that were stored for another delivery (CONSUMER_SEND_MSG_BACK or a"
                + " send to %RETRY%), by consumer group").labelNames("group")
            .callback(cb -> retryCounts.snapshot().forEach((group, c) -> cb.call(c.retries(), group))).register(registry);
        CounterWithCallback.builder().name("basalt_consumer_dlq")
            .help("Messages written to a group's %DLQ% topic (retries used up, delayLevel < 0, or an orderly consumer"
                + " giving up), by consumer group").labelNames("group")
            .callback(cb -> retryCounts.snapshot().forEach((group, c) -> cb.call(c.deadLettered(), group)))
            .register(registry);
        CounterWithCallback.builder().name("basalt_consumer_retry_dropped")
            .help("Messages consumers gave back that were dropped because the group has retryQueueNums <= 0, by"
                + " consumer group").labelNames("group")
            .callback(cb -> retryCounts.snapshot().forEach((group, c) -> cb.call(c.dropped(), group))).register(registry);
    }

    /** Where the send and send-back processors count retries, dead letters and drops per consumer group. */
    public RetryCounts retryCounts() {
        return retryCounts;
    }

    private void registerHa() {
        GaugeWithCallback.builder().name("basalt_ha_slave_ack_offset_bytes")
            .help("Highest CommitLog offset a slave acknowledged").labelNames("slave", "broker_id")
            .callback(cb -> sources.haSlaves().get().forEach(s -> cb.call(s.ackOffset(), slaveLabel(s), Long.toString(s.brokerId()))))
            .register(registry);
        GaugeWithCallback.builder().name("basalt_ha_slave_lag_bytes")
            .help("Master max offset minus the slave's acknowledged offset").labelNames("slave", "broker_id")
            .callback(cb -> sources.haSlaves().get().forEach(s -> cb.call(s.lagBytes(), slaveLabel(s), Long.toString(s.brokerId()))))
            .register(registry);
        GaugeWithCallback.builder().name("basalt_ha_slave_lag_seconds")
            .help("How long the slave has been behind (0 when caught up)").labelNames("slave", "broker_id")
            .callback(cb -> sources.haSlaves().get().forEach(s -> cb.call(s.lagMs() / 1000.0, slaveLabel(s), Long.toString(s.brokerId()))))
            .register(registry);
    }

    /**
     * Records one delivery of a delayed ({@code kind} "delay") or timer ("timer") message, {@code latenessMillis}
     * after it was due (a negative value, a clock step, counts as 0). Any thread; must not block.
     */
    public void recordDeliveryLateness(String kind, long latenessMillis) {
        deliveryLateness.labelValues(kind).observe(Math.max(0, latenessMillis) / 1000.0);
    }

    /** The delay levels' gauges and counters, per level of {@code messageDelayLevel}, read when scraped. */
    public void registerDelayLevels(java.util.function.Supplier<List<ScheduleMessageService.LevelStatus>> levels) {
        this.delayLevels = levels;
        GaugeWithCallback.builder().name("basalt_delay_backlog_messages")
            .help("Messages of a delay level not yet put back into their topic (queue max offset minus delivery offset)")
            .labelNames("level")
            .callback(cb -> levels.get().forEach(l -> cb.call(l.backlog(), Integer.toString(l.level()))))
            .register(registry);
        GaugeWithCallback.builder().name("basalt_delay_oldest_due_age_seconds")
            .help("How long the oldest due but undelivered message of a delay level has been due (0 when none)")
            .labelNames("level")
            .callback(cb -> levels.get().forEach(l -> cb.call(l.oldestDueAgeMillis() / 1000.0, Integer.toString(l.level()))))
            .register(registry);
        CounterWithCallback.builder().name("basalt_delay_delivered")
            .help("Messages of a delay level put back into their topic since start").labelNames("level")
            .callback(cb -> levels.get().forEach(l -> cb.call(l.delivered(), Integer.toString(l.level()))))
            .register(registry);
    }

    /** Replication's view (role, epoch, SyncStateSet, slaves in sync, elections, time without a master). */
    public void registerHa(HaMetrics ha) {
        this.ha = ha;
        ha.register(registry);
    }

    /** Replication's view, null until {@link #registerHa} (tests that build metrics alone). */
    HaMetrics ha() {
        return ha;
    }

    /**
     * Transactional messages per real topic (half messages prepared, committed, rolled back, checked, given up, and
     * the age of the oldest undecided one as the last check scan saw it), END_TRANSACTION requests refused by
     * reason, and second decisions ignored.
     */
    public void registerTransactions(TransactionCounters counters) {
        this.transactions = counters;
        transactionCounter(counters, "basalt_transaction_half_prepared", "Half messages stored, by real topic",
            TransactionCounters.TopicCounts::prepared);
        transactionCounter(counters, "basalt_transaction_committed",
            "Transactions committed (the message put to its topic)",
            TransactionCounters.TopicCounts::committed);
        transactionCounter(counters, "basalt_transaction_rolled_back", "Transactions rolled back",
            TransactionCounters.TopicCounts::rolledBack);
        transactionCounter(counters, "basalt_transaction_checked", "CHECK_TRANSACTION_STATE requests sent to a producer",
            TransactionCounters.TopicCounts::checked);
        transactionCounter(counters, "basalt_transaction_given_up",
            "Half messages given up after the last check (moved to TRANS_CHECK_MAX_TIME_TOPIC)",
            TransactionCounters.TopicCounts::givenUp);
        GaugeWithCallback.builder().name("basalt_transaction_oldest_undecided_age_seconds")
            .help("Age of the oldest half message neither committed nor rolled back, as the last check scan saw it"
                + " (0 when none)").labelNames("topic")
            .callback(cb -> counters.byTopic().forEach((topic, c) -> cb.call(c.oldestUndecidedAgeMs() / 1000.0, topic)))
            .register(registry);
        CounterWithCallback.builder().name("basalt_transaction_end_refused")
            .help("END_TRANSACTION requests refused or ignored, by reason").labelNames("reason")
            .callback(cb -> counters.endRefusals().forEach((reason, n) -> cb.call(n, reason)))
            .register(registry);
        counter("basalt_transaction_duplicate_decisions",
            "Second commit or rollback decisions for a half message already decided, ignored",
            counters::duplicateDecisions);
    }

    /**
     * POP: messages popped and acked, messages re-delivered because their invisible time passed without an ACK (the
     * only source of POP duplicates), messages dead-lettered instead, and pops and notifications parked now.
     */
    public void registerPop(io.basalt.broker.pop.PopCounters counters, java.util.function.IntSupplier parked) {
        counter("basalt_pop_popped_messages", "Messages handed out by POP_MESSAGE", counters::popped);
        counter("basalt_pop_acked_messages", "Messages acknowledged (ACK_MESSAGE, BATCH_ACK_MESSAGE)", counters::acked);
        counter("basalt_pop_revived_messages", "Un-acked POP messages re-delivered through the group's POP retry topic"
            + " after their invisible time", counters::revived);
        counter("basalt_pop_dead_lettered_messages", "Un-acked POP messages put to %DLQ%<group> instead, their group's"
            + " retryMaxTimes used up", counters::deadLettered);
        gauge("basalt_pop_parked_requests", "POP_MESSAGE and NOTIFICATION requests waiting for a message",
            parked::getAsInt);
    }

    /**
     * The gRPC endpoint of the RocketMQ 5.x SDKs: calls by RPC, and answers by RPC and application status code (or
     * the reason a call was refused before its handler, e.g. {@code acl}), beside the remoting request metrics.
     */
    public void registerGrpc(io.basalt.broker.grpc.GrpcCounters counters) {
        CounterWithCallback.builder().name("basalt_grpc_requests").help("gRPC calls received, by RPC")
            .labelNames("protocol", "rpc")
            .callback(cb -> counters.calls().forEach((rpc, n) -> cb.call(n, "grpc", rpc))).register(registry);
        CounterWithCallback.builder().name("basalt_grpc_responses")
            .help("gRPC calls answered, by RPC and application status code (or refusal reason)")
            .labelNames("protocol", "rpc", "code")
            .callback(cb -> counters.results().forEach((key, n) -> {
                int slash = key.indexOf('/');
                cb.call(n, "grpc", key.substring(0, slash), key.substring(slash + 1));
            }))
            .register(registry);
    }

    /**
     * The access checks: requests let in with a valid signature, let in by a white address without one (what skips
     * authentication), refused by ACL version and reason, and reloads of the ACL files.
     */
    public void registerAuth(io.basalt.broker.auth.AuthCounters counters) {
        counter("basalt_acl_requests_allowed", "Requests let in with a valid signature and the permissions they need",
            counters::allowed);
        counter("basalt_acl_requests_white_address", "Requests let in by a white address, without a signature check"
            + " (globalWhiteRemoteAddresses or an account's whiteRemoteAddress)", counters::whiteAddress);
        CounterWithCallback.builder().name("basalt_acl_requests_denied")
            .help("Requests refused, by ACL version (v1: plain_acl.yml, v2: users and policies) and reason")
            .labelNames("acl", "reason")
            .callback(cb -> counters.denied().forEach((key, n) -> {
                int slash = key.indexOf('/');
                cb.call(n, key.substring(0, slash), key.substring(slash + 1));
            }))
            .register(registry);
        counter("basalt_acl_reloads", "ACL file sets reloaded after a change", counters::reloads);
        counter("basalt_acl_reload_failures", "ACL file reloads refused (the previous set stayed in force)",
            counters::failedReloads);
    }

    private void transactionCounter(TransactionCounters counters, String name, String help,
        java.util.function.ToLongFunction<TransactionCounters.TopicCounts> count) {
        CounterWithCallback.builder().name(name).help(help).labelNames("topic")
            .callback(cb -> counters.byTopic().forEach((topic, c) -> cb.call(count.applyAsLong(c), topic)))
            .register(registry);
    }

    private void gauge(String name, String help, java.util.function.DoubleSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    private void counter(String name, String help, java.util.function.DoubleSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    @Override
    public void putDone(String topic, PutMessageStatus status, int messages, long bodyBytes, long latencyNanos) {
        putStatus[status.ordinal()].increment();
        putLatency.observe(latencyNanos / 1e9);
        if (!status.isStored()) {
            return;
        }
        TopicStats stats = byTopic.get(topic);
        if (stats == null) {
            stats = byTopic.computeIfAbsent(topic, t -> new TopicStats());
        }
        stats.messages.add(messages);
        stats.bytes.add(bodyBytes);
        messagesPut.add(messages);
    }

    @Override
    public void messagesIn(String topic, RocketMqMessageType type, int messages, long recordBytes) {
        rocketMqTraffic.in(topic, type, messages, recordBytes);
    }

    @Override
    public void messagesOut(String topic, String group, int messages, long bytes) {
        rocketMqTraffic.out(topic, group, messages, bytes);
    }

    /**
     * Registers RocketMQ 5's metric names ({@link RocketMqMetrics}) next to Basalt's. Call once, at construction of
     * the broker.
     *
     * @param extraLabels RocketMQ's {@code metricsLabel} pairs, added to every rocketmq_* series
     */
    public void registerRocketMq(RocketMqMetrics.Sources rocketMq, String cluster, String brokerName,
                                 Map<String, String> extraLabels) {
        new RocketMqMetrics(registry, sources, rocketMq, cluster, brokerName, extraLabels).register(rocketMqTraffic);
        this.clients = rocketMq.clients();
    }

    /** The online clients per group and protocol, for the status page; empty before {@link #registerRocketMq}. */
    List<ClientRows.Row> clientRows() {
        io.basalt.broker.client.ClientManager c = clients;
        return c == null ? List.of() : ClientRows.of(c);
    }

    @Override
    public void pullServed() {
        pullRequests.increment();
    }

    @Override
    public void messagesPulled(int messages) {
        messagesPulled.add(messages);
    }

    /** What the CommitLog's flush service reports each force to. */
    public FlushObserver flushObserver() {
        return (durationNanos, groupSize) -> {
            flushLatency.observe(durationNanos / 1e9);
            if (groupSize > 0) {
                flushGroupSize.observe(groupSize);
            }
        };
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** The transaction counters (the status page). */
    TransactionCounters transactions() {
        return transactions;
    }

    /** The delay levels as of now (the status page). */
    List<ScheduleMessageService.LevelStatus> delayLevels() {
        return delayLevels.get();
    }

    MetricsSources sources() {
        return sources;
    }

    Histogram putLatency() {
        return putLatency;
    }

    long messagesPut() {
        return messagesPut.sum();
    }

    long messagesPulled() {
        return messagesPulled.sum();
    }

    Map<String, Long> messagesPutByTopic() {
        Map<String, Long> m = new HashMap<>();
        byTopic.forEach((topic, s) -> m.put(topic, s.messages.sum()));
        return m;
    }

    List<QueueLag> consumerLag() {
        return ConsumerLag.compute(sources.topics(), sources.offsets(), sources.store());
    }

    /** A slave's address label: its remoting address, or for a classic RocketMQ slave (which does not tell it) its HA connection's. */
    private static String slaveLabel(SlaveStatus s) {
        return s.brokerAddr().isEmpty() ? s.address() : s.brokerAddr();
    }

    List<SlaveStatus> haSlaves() {
        return sources.haSlaves().get();
    }

    /** Used fraction of the disk holding the CommitLog, or 0 when the file system cannot say. */
    double diskUsedRatio() {
        try {
            FileStore fs = Files.getFileStore(sources.storePath());
            long total = fs.getTotalSpace();
            return total <= 0 ? 0 : (double) (total - fs.getUsableSpace()) / total;
        } catch (IOException e) {
            return 0;
        }
    }
}
