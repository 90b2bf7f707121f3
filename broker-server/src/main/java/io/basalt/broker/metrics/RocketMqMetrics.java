package io.basalt.broker.metrics;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.ProducerRegistry;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.transaction.TransactionCounters;
import io.basalt.store.MessageStore;
import io.basalt.store.StoredMessage;
import io.basalt.store.TimerMessages;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * RocketMQ 5's broker metric names, as its OpenTelemetry Prometheus exporter shows them (unit suffixes, {@code _total}
 * on counters), next to Basalt's {@code basalt_*} on the same endpoint, so that dashboards and alerts written for a
 * RocketMQ 5 broker work unchanged. Every series carries RocketMQ's {@code cluster}, {@code node_type="broker"},
 * {@code node_id} (the broker name) and the {@code metricsLabel} pairs; store metrics add
 * {@code storage_type="local"}, {@code storage_medium="disk"}. All values derive from counters Basalt keeps anyway
 * ({@link RocketMqTraffic} on the send and pull paths; the rest is read when scraped).
 */
public final class RocketMqMetrics {
    private static final List<String> CLIENT_VERSIONS = clientVersions();
    /** Basalt's executor names and RocketMQ's {@code processor} label values for them. */
    private static final Map<String, String> PROCESSORS = Map.of("send", "send", "pull", "pull",
        "endTransaction", "transaction");

    /**
     * What the scrape reads.
     *
     * @param brokerPermission RocketMQ's {@code brokerPermission} as in force now
     */
    public record Sources(ClientManager clients, RetryCounts retries, TransactionCounters transactions,
                          Supplier<Map<String, Long>> pendingHalfMessages, IntSupplier brokerPermission) {
    }

    private final PrometheusRegistry registry;
    private final MetricsSources broker;
    private final Sources sources;
    private final Labels constant;
    private final Labels storeLabels;

    /**
     * @param cluster     brokerClusterName
     * @param brokerName  brokerName (RocketMQ's {@code node_id}: master and slaves share it)
     * @param extraLabels RocketMQ's {@code metricsLabel} pairs
     */
    RocketMqMetrics(PrometheusRegistry registry, MetricsSources broker, Sources sources, String cluster,
                    String brokerName, Map<String, String> extraLabels) {
        this.registry = registry;
        this.broker = broker;
        this.sources = sources;
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("cluster", cluster);
        labels.put("node_type", "broker");
        labels.put("node_id", brokerName);
        labels.putAll(extraLabels);
        this.constant = Labels.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
        labels.put("storage_type", "local");
        labels.put("storage_medium", "disk");
        this.storeLabels = Labels.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
    }

    void register(RocketMqTraffic traffic) {
        registerTraffic(traffic);
        registerConsumerLag();
        registerConnections();
        registerBroker();
        registerStore();
        registerTransactions();
        registerTimer();
    }

    private boolean isSystemTopic(String topic) {
        return broker.topics().systemTopics().isSystemTopic(topic);
    }

    /** RocketMQ's {@code isSystem(topic, group)}: a system topic or a {@code CID_RMQ_SYS_} group. */
    private boolean isSystem(String topic, String group) {
        return isSystemTopic(topic) || group.startsWith("CID_RMQ_SYS_");
    }

    private void registerTraffic(RocketMqTraffic traffic) {
        CounterWithCallback.builder().name("rocketmq_messages_in").help("Messages stored by sends (retry and DLQ topics"
                + " excluded)").constLabels(constant).labelNames("topic", "message_type", "is_system")
            .callback(cb -> traffic.in().forEach((topic, s) -> eachType(s, t -> cb.call(s.messages[t].sum(), topic,
                RocketMqMessageType.ofOrdinal(t).label(), Boolean.toString(isSystemTopic(topic))))))
            .register(registry);
        CounterWithCallback.builder().name("rocketmq_throughput_in").help("CommitLog bytes stored by sends")
            .constLabels(constant).labelNames("topic", "message_type", "is_system")
            .callback(cb -> traffic.in().forEach((topic, s) -> eachType(s, t -> cb.call(s.bytes[t].sum(), topic,
                RocketMqMessageType.ofOrdinal(t).label(), Boolean.toString(isSystemTopic(topic))))))
            .register(registry);
        registry.register(new MessageSizeCollector(traffic));
        CounterWithCallback.builder().name("rocketmq_messages_out").help("Messages returned by pulls (retry and DLQ"
                + " topics excluded)").constLabels(constant).labelNames("topic", "consumer_group", "is_system")
            .callback(cb -> traffic.out().forEach((topic, groups) -> groups.forEach((group, s) ->
                cb.call(s.messages.sum(), topic, group, Boolean.toString(isSystem(topic, group))))))
            .register(registry);
        CounterWithCallback.builder().name("rocketmq_throughput_out").help("Bytes returned by pulls")
            .constLabels(constant).labelNames("topic", "consumer_group", "is_system")
            .callback(cb -> traffic.out().forEach((topic, groups) -> groups.forEach((group, s) ->
                cb.call(s.bytes.sum(), topic, group, Boolean.toString(isSystem(topic, group))))))
            .register(registry);
    }

    /** Calls {@code each} for the message types {@code s} has seen. */
    private static void eachType(RocketMqTraffic.In s, java.util.function.IntConsumer each) {
        for (int t = 0; t < s.messages.length; t++) {
            if (s.messages[t].sum() > 0) {
                each.accept(t);
            }
        }
    }

    /** {@code rocketmq_message_size}: a histogram read from {@link RocketMqTraffic}'s bucket counters. */
    private final class MessageSizeCollector implements Collector {
        private final RocketMqTraffic traffic;

        MessageSizeCollector(RocketMqTraffic traffic) {
            this.traffic = traffic;
        }

        @Override
        public MetricSnapshot collect() {
            HistogramSnapshot.Builder snapshot = HistogramSnapshot.builder().name("rocketmq_message_size")
                .help("CommitLog bytes per stored message (one observation per send: the records' mean size)");
            traffic.in().forEach((topic, s) -> eachType(s, t -> {
                long[] counts = new long[RocketMqTraffic.SIZE_BUCKETS.length];
                for (int b = 0; b < counts.length; b++) {
                    counts[b] = s.sizes[t][b].sum();
                }
                snapshot.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(RocketMqTraffic.SIZE_BUCKETS, counts))
                    .sum(s.sizeSum[t].sum())
                    .labels(constant.merge(Labels.of("topic", topic, "message_type",
                        RocketMqMessageType.ofOrdinal(t).label(), "is_system", Boolean.toString(isSystemTopic(topic)))))
                    .build());
            }));
            return snapshot.build();
        }

        @Override
        public String getPrometheusName() {
            return "rocketmq_message_size";
        }
    }

    /** One group's position on one subscribed topic, summed over the topic's write queues. */
    record GroupLag(String group, String topic, long lag, long earliestUnconsumedMs) {
    }

    /**
     * As RocketMQ's ConsumerLagCalculator for push and pull consumers: every online group, every topic it
     * subscribes to but retry topics, skipping topics without read or write permission; per write queue, max offset
     * minus committed offset (a queue without a committed offset counts as caught up).
     */
    List<GroupLag> groupLags() {
        ClientManager clients = sources.clients();
        TopicConfigManager topics = broker.topics();
        ConsumerOffsetManager offsets = broker.offsets();
        MessageStore store = broker.store();
        List<GroupLag> lags = new ArrayList<>();
        for (String group : clients.consumerGroupNames()) {
            ConsumerGroupInfo info = clients.consumerGroup(group);
            if (info == null || info.isEmpty()) {
                continue;
            }
            for (String topic : info.subscriptions().keySet()) {
                TopicConfig config = topics.get(topic);
                if (topic.startsWith("%RETRY%") || config == null) {
                    continue;
                }
                int perm = config.perm() & sources.brokerPermission().getAsInt();
                if ((perm & (Perm.READ | Perm.WRITE)) == 0) {
                    continue;
                }
                long lag = 0;
                long earliest = Long.MAX_VALUE;
                for (int q = 0; q < config.writeQueueNums(); q++) {
                    long max = Math.max(0, store.getMaxOffsetInQueue(topic, q));
                    long committed = offsets.queryOffset(group, topic, q);
                    if (committed < 0) {
                        committed = max;
                    }
                    lag += Math.max(0, max - committed);
                    if (committed < max) {
                        long stored = store.getMessageStoreTimeStamp(topic, q, committed);
                        if (stored > 0) {
                            earliest = Math.min(earliest, stored);
                        }
                    }
                }
                lags.add(new GroupLag(group, topic, lag, earliest == Long.MAX_VALUE ? 0 : earliest));
            }
        }
        return lags;
    }

    private void registerConsumerLag() {
        GaugeWithCallback.builder().name("rocketmq_consumer_lag_messages")
            .help("Messages not yet consumed: queue max offset minus committed offset, summed over the write queues")
            .constLabels(constant).labelNames("consumer_group", "topic", "is_retry", "is_system")
            .callback(cb -> groupLags().forEach(l -> cb.call(l.lag(), l.group(), l.topic(), "false",
                Boolean.toString(isSystem(l.topic(), l.group())))))
            .register(registry);
        GaugeWithCallback.builder().name("rocketmq_consumer_lag_latency_milliseconds")
            .help("Now minus the store time of the earliest message not yet consumed (0 when none)")
            .constLabels(constant).labelNames("consumer_group", "topic", "is_retry", "is_system")
            .callback(cb -> {
                long now = System.currentTimeMillis();
                groupLags().forEach(l -> cb.call(l.earliestUnconsumedMs() == 0 ? 0
                    : Math.max(0, now - l.earliestUnconsumedMs()), l.group(), l.topic(), "false",
                    Boolean.toString(isSystem(l.topic(), l.group()))));
            })
            .register(registry);
    }

    private void registerConnections() {
        GaugeWithCallback.builder().name("rocketmq_producer_connections").help("Producer connections")
            .constLabels(constant).labelNames("language", "version", "protocol_type")
            .callback(cb -> {
                Map<List<String>, Integer> counts = new HashMap<>();
                for (List<ProducerRegistry.Producer> producers : sources.clients().producers().table().values()) {
                    for (ProducerRegistry.Producer p : producers) {
                        counts.merge(List.of(lower(p.language()), versionLabel(p.version()), protocolOf(p.connection())),
                            1, Integer::sum);
                    }
                }
                counts.forEach((k, n) -> cb.call(n, k.get(0), k.get(1), k.get(2)));
            })
            .register(registry);
        GaugeWithCallback.builder().name("rocketmq_consumer_connections").help("Consumer connections")
            .constLabels(constant)
            .labelNames("consumer_group", "language", "version", "consume_mode", "protocol_type", "is_system")
            .callback(cb -> {
                Map<List<String>, Integer> counts = new HashMap<>();
                for (String group : sources.clients().consumerGroupNames()) {
                    ConsumerGroupInfo info = sources.clients().consumerGroup(group);
                    if (info == null) {
                        continue;
                    }
                    for (ConsumerGroupInfo.Member m : info.members()) {
                        counts.merge(List.of(group, lower(m.language()), versionLabel(m.version()),
                            consumeMode(m.consumeType()), m.protocol()), 1, Integer::sum);
                    }
                }
                counts.forEach((k, n) -> cb.call(n, k.get(0), k.get(1), k.get(2), k.get(3), k.get(4),
                    Boolean.toString(k.get(0).startsWith("CID_RMQ_SYS_"))));
            })
            .register(registry);
    }

    /**
     * The {@code protocol_type} of a client connection: {@code remoting}, or {@code grpc} for a 5.x SDK client (RocketMQ
     * labels every connection {@code remoting}, its broker seeing only remoting clients).
     */
    static String protocolOf(io.basalt.remoting.processor.RemotingConnection connection) {
        return connection == null ? "remoting" : connection.protocol();
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }

    /** RocketMQ's {@code consume_mode}: push, pull or pop, from the heartbeat's consumeType. */
    static String consumeMode(String consumeType) {
        if (consumeType == null) {
            return "";
        }
        return switch (consumeType) {
            case "CONSUME_PASSIVELY" -> "push";
            case "CONSUME_ACTIVELY" -> "pull";
            case "CONSUME_POP" -> "pop";
            default -> consumeType.toLowerCase(Locale.ROOT);
        };
    }

    /** RocketMQ's {@code version} label: the lower-case name of the client's MQVersion ({@code v5_2_0}). */
    static String versionLabel(int version) {
        if (version >= 0 && version < CLIENT_VERSIONS.size()) {
            return CLIENT_VERSIONS.get(version).toLowerCase(Locale.ROOT);
        }
        return "higher_version";
    }

    private static List<String> clientVersions() {
        try (InputStream in = RocketMqMetrics.class.getResourceAsStream("client-versions.txt")) {
            if (in == null) {
                throw new IllegalStateException("client-versions.txt missing from the broker's jar");
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().map(String::trim)
                .filter(l -> !l.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void registerBroker() {
        GaugeWithCallback.builder().name("rocketmq_processor_watermark")
            .help("Requests waiting in a processor's executor queue").constLabels(constant).labelNames("processor")
            .callback(cb -> broker.executors().forEach(e -> {
                String processor = PROCESSORS.get(e.name());
                if (processor != null) {
                    cb.call(e.queueSize().getAsInt(), processor);
                }
            }))
            .register(registry);
        GaugeWithCallback.builder().name("rocketmq_broker_permission").help("brokerPermission (4 read, 2 write)")
            .constLabels(constant).callback(cb -> cb.call(sources.brokerPermission().getAsInt())).register(registry);
        CounterWithCallback.builder().name("rocketmq_send_to_dlq_messages")
            .help("Messages moved to a consumer group's %DLQ% topic, by group and original topic")
            .constLabels(constant).labelNames("consumer_group", "topic", "is_system")
            .callback(cb -> sources.retries().deadLetteredByTopic().forEach((group, topics) -> topics.forEach(
                (topic, n) -> cb.call(n, group, topic, Boolean.toString(isSystem(topic, group))))))
            .register(registry);
    }

    private void registerStore() {
        MessageStore store = broker.store();
        GaugeWithCallback.builder().name("rocketmq_storage_size_bytes").help("Used bytes of the store's volume")
            .constLabels(storeLabels).callback(cb -> cb.call(usedBytes())).register(registry);
        GaugeWithCallback.builder().name("rocketmq_storage_flush_behind_bytes")
            .help("CommitLog bytes written but not yet forced to disk").constLabels(storeLabels)
            .callback(cb -> cb.call(Math.max(0, store.getMaxPhyOffset() - store.flushedOffset()))).register(registry);
        GaugeWithCallback.builder().name("rocketmq_storage_dispatch_behind_bytes")
            .help("CommitLog bytes not yet dispatched to the consume queues and index").constLabels(storeLabels)
            .callback(cb -> cb.call(store.dispatchBehindBytes())).register(registry);
        GaugeWithCallback.builder().name("rocketmq_storage_message_reserve_time_milliseconds")
            .help("Now minus the store time of the earliest message in the CommitLog").constLabels(storeLabels)
            .callback(cb -> {
                long earliest = earliestMessageTime(store);
                if (earliest > 0) {
                    cb.call(Math.max(0, System.currentTimeMillis() - earliest));
                }
            })
            .register(registry);
    }

    private double usedBytes() {
        try {
            FileStore fs = Files.getFileStore(broker.storePath());
            return fs.getTotalSpace() - fs.getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Store time of the first message of the CommitLog, or -1 when there is none or it cannot be read. */
    private static long earliestMessageTime(MessageStore store) {
        long min = store.getMinPhyOffset();
        if (min >= store.getMaxPhyOffset()) {
            return -1;
        }
        StoredMessage first = store.lookMessageByOffset(min);
        return first == null ? -1 : first.storeTimestamp();
    }

    private void registerTransactions() {
        TransactionCounters counters = sources.transactions();
        CounterWithCallback.builder().name("rocketmq_commit_messages").help("Transaction messages committed")
            .constLabels(constant).labelNames("topic")
            .callback(cb -> counters.byTopic().forEach((topic, c) -> cb.call(c.committed(), topic))).register(registry);
        CounterWithCallback.builder().name("rocketmq_rollback_messages").help("Transaction messages rolled back")
            .constLabels(constant).labelNames("topic")
            .callback(cb -> counters.byTopic().forEach((topic, c) -> cb.call(c.rolledBack(), topic))).register(registry);
        GaugeWithCallback.builder().name("rocketmq_half_messages").help("Half messages neither committed nor rolled back")
            .constLabels(constant).labelNames("topic")
            .callback(cb -> sources.pendingHalfMessages().get().forEach((topic, n) -> cb.call(n, topic)))
            .register(registry);
    }

    /** The timer wheel's, as RocketMQ exports them when timerWheelEnable is on. */
    private void registerTimer() {
        TimerMessages timers = broker.store().timerMessages();
        if (!timers.enabled()) {
            return;
        }
        GaugeWithCallback.builder().name("rocketmq_timer_enqueue_lag").help("Timer messages not yet in the wheel")
            .constLabels(storeLabels).callback(cb -> cb.call(timers.stats().enqueueLagMessages())).register(registry);
        GaugeWithCallback.builder().name("rocketmq_timer_enqueue_latency_milliseconds")
            .help("Age of the oldest timer message not yet in the wheel").constLabels(storeLabels)
            .callback(cb -> cb.call(timers.stats().enqueueLagMillis())).register(registry);
        GaugeWithCallback.builder().name("rocketmq_timer_dequeue_latency_milliseconds")
            .help("How far the wheel's read clock is behind now").constLabels(storeLabels)
            .callback(cb -> cb.call(timers.stats().dequeueLagMillis())).register(registry);
        CounterWithCallback.builder().name("rocketmq_timer_enqueue").help("Entries put into the timer wheel")
            .constLabels(storeLabels).callback(cb -> cb.call(timers.stats().enqueued())).register(registry);
        CounterWithCallback.builder().name("rocketmq_timer_dequeue").help("Timer messages delivered to their topic")
            .constLabels(storeLabels).callback(cb -> cb.call(timers.stats().delivered())).register(registry);
    }
}
