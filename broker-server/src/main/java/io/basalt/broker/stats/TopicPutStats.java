package io.basalt.broker.stats;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * RocketMQ's {@code TOPIC_PUT_NUMS} and {@code TOPIC_PUT_SIZE} sets: per topic, the messages stored by sends and
 * their stored bytes, one event per send request (a batch counts all its messages).
 *
 * <p>Threads: {@link #stored} on the send threads (one map lookup and four {@link java.util.concurrent.atomic.LongAdder}
 * increments once the topic's items exist); {@link #sample} on the sampling thread; {@link #of} from any thread.
 */
final class TopicPutStats {
    private final ConcurrentMap<String, CountAndSize> byTopic = new ConcurrentHashMap<>();

    void stored(String topic, int messages, long bytes) {
        CountAndSize items = byTopic.get(topic);
        if (items == null) {
            items = byTopic.computeIfAbsent(topic, t -> new CountAndSize());
        }
        items.add(messages, bytes);
    }

    /** Samples every topic; drops a topic that got nothing for a whole day (RocketMQ keeps it until deleted). */
    int sample(SamplingTick tick) {
        int sampled = 0;
        for (Map.Entry<String, CountAndSize> e : byTopic.entrySet()) {
            e.getValue().sample(tick);
            sampled++;
            if (e.getValue().idleForADay()) {
                byTopic.remove(e.getKey(), e.getValue());
            }
        }
        return sampled;
    }

    /** The topic's items, null when nothing was stored in it. */
    CountAndSize of(String topic) {
        return byTopic.get(topic);
    }
}
