package io.basalt.broker.topic;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * RocketMQ's system topics for one broker: which names are reserved ({@code TopicValidator.isSystemTopic}: the
 * static set, the names the 5.2.0 {@code TopicConfigManager} adds at start, and the {@code rmq_sys_} prefix), and
 * which of them Basalt creates at start, with RocketMQ's queue numbers and permissions:
 * <ul>
 *   <li>{@code SELF_TEST_TOPIC}, {@code OFFSET_MOVED_EVENT}, {@code <cluster>_REPLY_TOPIC}: 1 queue, perm 6;</li>
 *   <li>{@code TBW102} when {@code autoCreateTopicEnable}: {@code defaultTopicQueueNums} queues, perm 7;</li>
 *   <li>the cluster-name topic (16 queues) and the broker-name topic (1 queue): perm INHERIT, plus READ|WRITE
 *   when {@code clusterTopicEnable} / {@code brokerTopicEnable}. The admin API creates a topic on every master
 *   of a cluster by asking for the cluster-name topic's route;</li>
 *   <li>{@code msgTraceTopicName} when {@code traceTopicEnable}: 1 queue, perm 6;</li>
 *   <li>{@code RMQ_SYS_TRANS_HALF_TOPIC} and {@code RMQ_SYS_TRANS_OP_HALF_TOPIC} (transactions' half messages and
 *   their done markers): 1 queue, perm 6, as RocketMQ's TransactionalMessageUtil creates them.</li>
 * </ul>
 * Not created at start: {@code TRANS_CHECK_MAX_TIME_TOPIC} (created with its first given-up half message, as by
 * RocketMQ), {@code SCHEDULE_TOPIC_XXXX} (its queues appear with the first delayed message),
 * {@code rmq_sys_REVIVE_LOG_<cluster>} (POP),
 * {@code rmq_sys_SYNC_BROKER_MEMBER_<broker>} (acting master). They stay reserved. Nor is {@code BenchmarkTest}
 * (1024 queues in RocketMQ, which would spread a benchmark over 1024 consume queues): it is an ordinary topic
 * here, created by its first send or by the admin, so it is not reserved either. Immutable.
 */
public final class SystemTopics {
    public static final String AUTO_CREATE_TOPIC_KEY_TOPIC = TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC;
    public static final String SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";
    public static final String TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    public static final String TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";
    public static final String TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    public static final String TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";
    public static final String SELF_TEST_TOPIC = "SELF_TEST_TOPIC";
    public static final String OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT";
    public static final String ROCKSDB_OFFSET_TOPIC = "CHECKPOINT_TOPIC";
    public static final String SYSTEM_TOPIC_PREFIX = "rmq_sys_";
    public static final String REPLY_TOPIC_POSTFIX = "_REPLY_TOPIC";

    /** RocketMQ's {@code TopicValidator.SYSTEM_TOPIC_SET} before the broker adds to it, less BenchmarkTest. */
    private static final Set<String> STATIC = Set.of(AUTO_CREATE_TOPIC_KEY_TOPIC, SCHEDULE_TOPIC,
        TRANS_HALF_TOPIC, TRACE_TOPIC, TRANS_OP_HALF_TOPIC, TRANS_CHECK_MAX_TIME_TOPIC, SELF_TEST_TOPIC,
        OFFSET_MOVED_EVENT, ROCKSDB_OFFSET_TOPIC);
    /** RocketMQ's {@code new TopicConfig(name)} queue count, which the cluster-name topic keeps. */
    private static final int DEFAULT_QUEUE_NUMS = 16;
    private static final int RW = Perm.READ | Perm.WRITE;

    /**
     * The broker settings that decide the system topics (RocketMQ's {@code BrokerConfig} names).
     *
     * @param msgTraceTopicName the trace topic, created when {@code traceTopicEnable}
     */
    public record Settings(String brokerClusterName, String brokerName, boolean autoCreateTopicEnable,
                           int defaultTopicQueueNums, boolean clusterTopicEnable, boolean brokerTopicEnable,
                           boolean traceTopicEnable, String msgTraceTopicName) {
    }

    /**
     * A topic created at start when topics.json lacks it.
     *
     * @param permFromSettings whether its perm follows a setting at every start (the cluster- and broker-name
     *                         topics), instead of only when it is created
     */
    public record StartupTopic(TopicConfig config, boolean permFromSettings) {
    }

    private final Set<String> reserved;
    private final List<StartupTopic> startupTopics;

    private SystemTopics(Set<String> reserved, List<StartupTopic> startupTopics) {
        this.reserved = Set.copyOf(reserved);
        this.startupTopics = List.copyOf(startupTopics);
    }

    /** The system topics of a broker with these settings. */
    public static SystemTopics of(Settings s) {
        Set<String> reserved = new HashSet<>(STATIC);
        List<StartupTopic> created = new ArrayList<>();
        created.add(plain(SELF_TEST_TOPIC));
        if (s.autoCreateTopicEnable()) {
            created.add(new StartupTopic(TopicConfig.of(AUTO_CREATE_TOPIC_KEY_TOPIC, s.defaultTopicQueueNums(),
                RW | Perm.INHERIT), false));
        }
        created.add(new StartupTopic(TopicConfig.of(s.brokerClusterName(), DEFAULT_QUEUE_NUMS,
            Perm.INHERIT | (s.clusterTopicEnable() ? RW : 0)), true));
        created.add(new StartupTopic(TopicConfig.of(s.brokerName(), 1, Perm.INHERIT | (s.brokerTopicEnable() ? RW : 0)),
            true));
        created.add(plain(OFFSET_MOVED_EVENT));
        if (s.traceTopicEnable()) {
            created.add(plain(s.msgTraceTopicName()));
        }
        created.add(plain(replyTopic(s.brokerClusterName())));
        created.add(plain(TRANS_HALF_TOPIC));
        created.add(plain(TRANS_OP_HALF_TOPIC));
        created.forEach(t -> reserved.add(t.config().topicName()));
        return new SystemTopics(reserved, created);
    }

    /**
     * Only RocketMQ's static system topics, and {@code TBW102} created when {@code autoCreateTopicEnable}: a
     * broker that knows no cluster or broker name (tests of the topic table alone).
     */
    public static SystemTopics templateOnly(boolean autoCreateTopicEnable, int defaultTopicQueueNums) {
        List<StartupTopic> created = autoCreateTopicEnable
            ? List.of(new StartupTopic(TopicConfig.of(AUTO_CREATE_TOPIC_KEY_TOPIC, defaultTopicQueueNums,
                RW | Perm.INHERIT), false))
            : List.of();
        return new SystemTopics(STATIC, created);
    }

    /** A topic with 1 queue, perm 6, created when missing. */
    private static StartupTopic plain(String topic) {
        return new StartupTopic(TopicConfig.of(topic, 1, RW), false);
    }

    /** RocketMQ's request-reply topic of a cluster, {@code <cluster>_REPLY_TOPIC}. */
    public static String replyTopic(String brokerClusterName) {
        return brokerClusterName + REPLY_TOPIC_POSTFIX;
    }

    /**
     * RocketMQ's {@code isSystemTopic}: reserved names that UPDATE_AND_CREATE_TOPIC and DELETE_TOPIC_IN_BROKER
     * refuse ("conflict with system topic").
     */
    public boolean isSystemTopic(String topic) {
        return reserved.contains(topic) || topic.startsWith(SYSTEM_TOPIC_PREFIX);
    }

    /** The reserved names, those created at start included ({@code rmq_sys_} names aside). */
    public Set<String> reservedNames() {
        return reserved;
    }

    /** The topics created at start when missing, in RocketMQ's order. */
    public List<StartupTopic> startupTopics() {
        return startupTopics;
    }
}
