package io.basalt.broker.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.MessageStore;

/**
 * Lag of every consumer group on every queue it committed an offset for: the queue's max offset minus
 * the committed offset (what RocketMQ's consumerProgress calls diff). Computed on demand (scrape,
 * sampling), any thread.
 */
final class ConsumerLag {
    record QueueLag(String group, String topic, int queueId, long brokerOffset, long consumerOffset) {
        long lag() {
            return Math.max(0, brokerOffset - consumerOffset);
        }
    }

    private ConsumerLag() {
    }

    static List<QueueLag> compute(TopicConfigManager topics, ConsumerOffsetManager offsets, MessageStore store) {
        List<QueueLag> lags = new ArrayList<>();
        for (TopicConfig topic : topics.all()) {
            String name = topic.topicName();
            for (String group : offsets.groupsOf(name)) {
                for (Map.Entry<Integer, Long> e : offsets.queryOffsets(group, name).entrySet()) {
                    long max = store.getMaxOffsetInQueue(name, e.getKey());
                    lags.add(new QueueLag(group, name, e.getKey(), max, e.getValue()));
                }
            }
        }
        return lags;
    }

    static long total(List<QueueLag> lags) {
        long sum = 0;
        for (QueueLag l : lags) {
            sum += l.lag();
        }
        return sum;
    }
}
