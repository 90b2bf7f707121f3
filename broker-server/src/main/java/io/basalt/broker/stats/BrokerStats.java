package io.basalt.broker.stats;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The stats sets of RocketMQ's {@code BrokerStatsManager} that Basalt keeps, by RocketMQ's names and keys, as
 * VIEW_BROKER_STATS_DATA reports them (see {@link #KEPT}). Counting is a map lookup and a few
 * {@link java.util.concurrent.atomic.LongAdder} increments on the request threads; {@link #sample()} runs every
 * {@link StatsItem#SAMPLE_INTERVAL_MS} ms on one scheduler thread.
 */
public final class BrokerStats {
    public static final String TOPIC_PUT_NUMS = "TOPIC_PUT_NUMS";
    public static final String TOPIC_PUT_SIZE = "TOPIC_PUT_SIZE";
    public static final String GROUP_GET_NUMS = "GROUP_GET_NUMS";
    public static final String GROUP_GET_SIZE = "GROUP_GET_SIZE";
    public static final String SNDBCK_PUT_NUMS = "SNDBCK_PUT_NUMS";
    public static final String BROKER_PUT_NUMS = "BROKER_PUT_NUMS";
    public static final String BROKER_GET_NUMS = "BROKER_GET_NUMS";
    public static final String BROKER_PUT_NUMS_WITHOUT_SYSTEM_TOPIC = "BROKER_PUT_NUMS_WITHOUT_SYSTEM_TOPIC";
    public static final String BROKER_GET_NUMS_WITHOUT_SYSTEM_TOPIC = "BROKER_GET_NUMS_WITHOUT_SYSTEM_TOPIC";

    /** The stats names Basalt keeps. */
    public static final List<String> KEPT = List.of(TOPIC_PUT_NUMS, TOPIC_PUT_SIZE, GROUP_GET_NUMS, GROUP_GET_SIZE,
        SNDBCK_PUT_NUMS, BROKER_PUT_NUMS, BROKER_GET_NUMS, BROKER_PUT_NUMS_WITHOUT_SYSTEM_TOPIC,
        BROKER_GET_NUMS_WITHOUT_SYSTEM_TOPIC);

    /** What a look-up found. */
    public sealed interface Lookup {
        /** The item of a kept name and a key that has counted something. */
        record Found(StatsItem item) implements Lookup {
        }

        /** A kept name whose key has counted nothing (RocketMQ: "The stats NAME KEY not exist"). */
        record NoSuchKey() implements Lookup {
        }

        /** A name Basalt does not keep. */
        record NotKept() implements Lookup {
        }
    }

    private final LongSupplier clockMs;
    private final String clusterName;
    private final Predicate<String> systemTopic;
    private final TopicPutStats topicPuts = new TopicPutStats();
    private final GroupGetStats groupGets = new GroupGetStats();
    private final ConcurrentMap<String, StatsItem> sendBacks = new ConcurrentHashMap<>();
    private final StatsItem brokerPuts = new StatsItem();
    private final StatsItem brokerGets = new StatsItem();
    private final StatsItem brokerPutsWithoutSystem = new StatsItem();
    private final StatsItem brokerGetsWithoutSystem = new StatsItem();
    /** Sampling rounds so far; the sampling thread's alone. */
    private long rounds;

    /**
     * @param clusterName the key of the {@code BROKER_*} items
     * @param systemTopic RocketMQ's {@code isSystemTopic}, for the {@code *_WITHOUT_SYSTEM_TOPIC} items
     */
    public BrokerStats(LongSupplier clockMs, String clusterName, Predicate<String> systemTopic) {
        this.clockMs = clockMs;
        this.clusterName = clusterName;
        this.systemTopic = systemTopic;
    }

    /** A send request stored {@code messages} messages of {@code storedBytes} bytes in {@code topic}. */
    public void stored(String topic, int messages, long storedBytes) {
        topicPuts.stored(topic, messages, storedBytes);
        brokerPuts.addValue(messages);
        if (!systemTopic.test(topic)) {
            brokerPutsWithoutSystem.addValue(messages);
        }
    }

    /** A FOUND pull of {@code topic} by {@code group} returned {@code messages} messages of {@code bytes} bytes. */
    public void delivered(String topic, String group, int messages, long bytes) {
        groupGets.delivered(topic, group, messages, bytes);
        brokerGets.addValue(messages);
        if (!systemTopic.test(topic)) {
            brokerGetsWithoutSystem.addValue(messages);
        }
    }

    /** A CONSUMER_SEND_MSG_BACK of {@code group} for a message of {@code topic} (its first topic) was stored. */
    public void sentBack(String topic, String group) {
        sendBacks.computeIfAbsent(topic + "@" + group, k -> new StatsItem()).add(1);
    }

    /** The messages per group and topic, for the consume TPS. */
    public GroupGetStats groupGets() {
        return groupGets;
    }

    /** One sampling round; returns the number of keyed items sampled. */
    public int sample() {
        SamplingTick tick = SamplingTick.of(rounds++, clockMs.getAsLong());
        int sampled = topicPuts.sample(tick) + groupGets.sample(tick);
        for (Map.Entry<String, StatsItem> e : sendBacks.entrySet()) {
            tick.apply(e.getValue());
            sampled++;
            if (e.getValue().idleForADay()) {
                sendBacks.remove(e.getKey(), e.getValue());
            }
        }
        for (StatsItem item : List.of(brokerPuts, brokerGets, brokerPutsWithoutSystem, brokerGetsWithoutSystem)) {
            tick.apply(item);
        }
        return sampled;
    }

    /** The item RocketMQ names {@code statsName} / {@code statsKey}. */
    public Lookup find(String statsName, String statsKey) {
        StatsItem item;
        switch (statsName) {
            case TOPIC_PUT_NUMS, TOPIC_PUT_SIZE -> {
                CountAndSize items = topicPuts.of(statsKey);
                item = items == null ? null : statsName.equals(TOPIC_PUT_NUMS) ? items.nums() : items.size();
            }
            case GROUP_GET_NUMS, GROUP_GET_SIZE -> {
                int at = statsKey.indexOf('@');
                CountAndSize items = at < 0 ? null : groupGets.of(statsKey.substring(0, at), statsKey.substring(at + 1));
                item = items == null ? null : statsName.equals(GROUP_GET_NUMS) ? items.nums() : items.size();
            }
            case SNDBCK_PUT_NUMS -> item = sendBacks.get(statsKey);
            case BROKER_PUT_NUMS -> item = clusterName.equals(statsKey) ? brokerPuts : null;
            case BROKER_GET_NUMS -> item = clusterName.equals(statsKey) ? brokerGets : null;
            case BROKER_PUT_NUMS_WITHOUT_SYSTEM_TOPIC -> item = clusterName.equals(statsKey) ? brokerPutsWithoutSystem : null;
            case BROKER_GET_NUMS_WITHOUT_SYSTEM_TOPIC -> item = clusterName.equals(statsKey) ? brokerGetsWithoutSystem : null;
            default -> {
                return new Lookup.NotKept();
            }
        }
        return item == null ? new Lookup.NoSuchKey() : new Lookup.Found(item);
    }
}
