package io.basalt.broker.stats;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * RocketMQ's {@code GROUP_GET_NUMS} and {@code GROUP_GET_SIZE} sets: per {@code topic@group}, the messages and
 * bytes FOUND pulls returned to the group, one event per pull. GET_CONSUME_STATS reports the sum of the group's
 * per-topic 1-minute TPS of messages as its {@code consumeTps}: messages delivered, not acknowledged.
 *
 * <p>Threads: {@link #delivered} on the pull threads (two map lookups and four
 * {@link java.util.concurrent.atomic.LongAdder} increments; the maps are keyed topic → group so that nothing is
 * concatenated or allocated once the items exist); {@link #sample} on the sampling thread; the readers from any
 * thread.
 */
public final class GroupGetStats {
    private final ConcurrentMap<String, ConcurrentMap<String, CountAndSize>> byTopic = new ConcurrentHashMap<>();

    /** A FOUND pull of {@code topic} by {@code group} returned {@code messages} messages of {@code bytes} bytes. */
    public void delivered(String topic, String group, int messages, long bytes) {
        ConcurrentMap<String, CountAndSize> groups = byTopic.get(topic);
        if (groups == null) {
            groups = byTopic.computeIfAbsent(topic, t -> new ConcurrentHashMap<>());
        }
        CountAndSize items = groups.get(group);
        if (items == null) {
            items = groups.computeIfAbsent(group, g -> new CountAndSize());
        }
        items.add(messages, bytes);
    }

    /**
     * Samples every item. An item that got nothing for a whole day is dropped (so groups that went away do not stay
     * in memory; RocketMQ keeps them until the group or topic is deleted); the next pull starts a new one. A pull
     * racing with the drop may go uncounted, which a day of silence before it makes harmless.
     */
    int sample(SamplingTick tick) {
        int sampled = 0;
        for (ConcurrentMap<String, CountAndSize> groups : byTopic.values()) {
            for (Map.Entry<String, CountAndSize> e : groups.entrySet()) {
                e.getValue().sample(tick);
                sampled++;
                if (e.getValue().idleForADay()) {
                    groups.remove(e.getKey(), e.getValue());
                }
            }
        }
        return sampled;
    }

    /** {@code topic@group}'s items, null when the group got nothing of the topic. */
    CountAndSize of(String topic, String group) {
        ConcurrentMap<String, CountAndSize> groups = byTopic.get(topic);
        return groups == null ? null : groups.get(group);
    }

    /** {@code topic@group}'s last minute of messages; {@link StatsItem.Window#EMPTY} when the group got nothing. */
    public StatsItem.Window minute(String topic, String group) {
        CountAndSize items = of(topic, group);
        return items == null ? StatsItem.Window.EMPTY : items.nums().minute();
    }
}
