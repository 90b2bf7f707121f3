package io.basalt.broker.assignment;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;

/**
 * The route of a broker that is its own NameServer: its own topic table, with the perm the broker registers
 * (masked by {@code brokerPermission}), so that consumers get exactly the queues its route shows.
 */
public final class LocalTopicQueues implements TopicQueues {
    private final String brokerName;
    private final TopicConfigManager topics;

    public LocalTopicQueues(String brokerName, TopicConfigManager topics) {
        this.brokerName = brokerName;
        this.topics = topics;
    }

    @Override
    public Optional<List<MessageQueue>> readableQueues(String topic) {
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return Optional.empty();
        }
        List<MessageQueue> queues = new ArrayList<>();
        if ((topics.brokerPermission().registeredPerm(config.perm()) & Perm.READ) != 0) {
            for (int id = 0; id < config.readQueueNums(); id++) {
                queues.add(new MessageQueue(topic, brokerName, id));
            }
        }
        return Optional.of(queues);
    }
}
