package io.basalt.broker.stats;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * RocketMQ's {@code GROUP_GET_NUMS} stats set: per {@code topic@group}, the messages FOUND pulls returned to the
 * group (value) and the number of those pulls (times), with RocketMQ's minute window ({@link StatsItem}).
 * GET_CONSUME_STATS reports the sum of the group's per-topic 1-minute TPS as its {@code consumeTps}: messages
 * delivered, not acknowledged.
 *
 * <p>Threads: {@link #delivered} on the pull threads (two map lookups and two {@link java.util.concurrent.atomic.LongAdder}
 * increments; the maps are keyed topic → group so that nothing is concatenated or allocated once the item exists);
 * {@link #sample()} on the broker's scheduler every {@link StatsItem#SAMPLE_INTERVAL_MS} ms; {@link #minute} from
 * any thread.
 */
public final class GroupGetStats {
    private final ConcurrentMap<String, ConcurrentMap<String, StatsItem>> byTopic = new ConcurrentHashMap<>();
    private final LongSupplier clockMs;

    public GroupGetStats(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** A FOUND pull of {@code topic} by {@code group} returned {@code messages} messages. */
    public void delivered(String topic, String group, int messages) {
        ConcurrentMap<String, StatsItem> groups = byTopic.get(topic);
        if (groups == null) {
            groups = byTopic.computeIfAbsent(topic, t -> new ConcurrentHashMap<>());
        }
        StatsItem item = groups.get(group);
        if (item == null) {
            item = groups.computeIfAbsent(group, g -> new StatsItem());
        }
        item.add(messages);
    }

    /**
     * Samples every item. An item that got nothing for a whole minute is dropped (so groups that went away do not
     * stay in memory); the next pull of that group starts a new one. A pull racing with the drop may go uncounted,
     * which a minute of silence before it makes harmless.
     */
    public int sample() {
        long now = clockMs.getAsLong();
        int sampled = 0;
        for (ConcurrentMap<String, StatsItem> groups : byTopic.values()) {
            for (Map.Entry<String, StatsItem> e : groups.entrySet()) {
                StatsItem item = e.getValue();
                item.sample(now);
                sampled++;
                if (item.idleForAMinute()) {
                    groups.remove(e.getKey(), item);
                }
            }
        }
        return sampled;
    }

    /** {@code topic@group}'s last minute; {@link StatsItem.Window#EMPTY} when the group got nothing of the topic. */
    public StatsItem.Window minute(String topic, String group) {
        ConcurrentMap<String, StatsItem> groups = byTopic.get(topic);
        StatsItem item = groups == null ? null : groups.get(group);
        return item == null ? StatsItem.Window.EMPTY : item.minute();
    }
}
