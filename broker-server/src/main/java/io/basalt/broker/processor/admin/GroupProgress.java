package io.basalt.broker.processor.admin;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.OffsetWrapper;
import io.basalt.broker.stats.GroupGetStats;
import io.basalt.store.MessageStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A consumer group's progress on one topic of this broker, as RocketMQ's GET_CONSUME_STATS and
 * GET_BROKER_CONSUME_STATS compute it: per queue the broker's max offset, the committed offset (both at least 0)
 * and the store time of the last consumed message; the group's 1-minute consume TPS of the topic. Basalt keeps
 * no pull offsets apart from committed ones, so the pull offset is the committed one. Any thread.
 */
final class GroupProgress {
    private final String brokerName;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;
    private final GroupGetStats groupGets;

    GroupProgress(String brokerName, ConsumerOffsetManager offsets, ClientManager clients, MessageStore store,
        GroupGetStats groupGets) {
        this.brokerName = brokerName;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
        this.groupGets = groupGets;
    }

    /** Topics the group has committed offsets for (RocketMQ's whichTopicByConsumer). */
    Set<String> topicsOf(String group) {
        return offsets.topicsOf(group);
    }

    /** RocketMQ's rule: an online group with subscriptions that do not include the topic does not consume it. */
    boolean consumes(String group, String topic) {
        ConsumerGroupInfo live = clients.consumerGroup(group);
        return live == null || live.subscriptions().isEmpty() || live.subscription(topic) != null;
    }

    /** Queues {@code 0 .. queues−1} of the topic into {@code table}. */
    void queues(String group, String topic, int queues, Map<MessageQueue, OffsetWrapper> table) {
        for (int queueId = 0; queueId < queues; queueId++) {
            long brokerOffset = Math.max(0, store.getMaxOffsetInQueue(topic, queueId));
            long consumerOffset = Math.max(0, offsets.queryOffset(group, topic, queueId));
            long lastTimestamp = 0;
            if (consumerOffset > 0) {
                lastTimestamp = Math.max(0, store.getMessageStoreTimeStamp(topic, queueId, consumerOffset - 1));
            }
            table.put(new MessageQueue(topic, brokerName, queueId),
                new OffsetWrapper(brokerOffset, consumerOffset, consumerOffset, lastTimestamp));
        }
    }

    Map<MessageQueue, OffsetWrapper> queues(String group, String topic, int queues) {
        Map<MessageQueue, OffsetWrapper> table = new LinkedHashMap<>();
        queues(group, topic, queues, table);
        return table;
    }

    /** Messages per second FOUND pulls delivered of the topic to the group over the last minute. */
    double consumeTps(String group, String topic) {
        return groupGets.minute(topic, group).tps();
    }
}
