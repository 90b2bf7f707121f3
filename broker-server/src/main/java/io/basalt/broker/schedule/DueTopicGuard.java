package io.basalt.broker.schedule;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageTransform;

/**
 * The last put step: a due delayed or timer message put back into a topic the table does not know gets
 * the topic created (read and write queues enough for its queue id, at least {@code defaultTopicQueueNums},
 * READ|WRITE). A topic auto-created by the send of a delayed message and lost by a crash before
 * {@code topics.json} was written would otherwise receive messages no consumer can route to: its queues
 * hold only what comes due after the restart, so start-up's recovery of topics from queues on disk cannot
 * see it. Called on the delivering thread; never blocks (the table is written by the metadata persister).
 */
public final class DueTopicGuard implements PutMessageTransform {
    private final TopicConfigManager topics;
    private final int defaultQueueNums;

    public DueTopicGuard(TopicConfigManager topics, int defaultQueueNums) {
        this.topics = topics;
        this.defaultQueueNums = Math.max(1, defaultQueueNums);
    }

    @Override
    public Decision apply(BrokerMessage message) {
        if (message.dueRedelivery() && topics.get(message.topic()) == null) {
            try {
                topics.createIfAbsent(message.topic(), Math.max(defaultQueueNums, message.queueId() + 1),
                    Perm.READ | Perm.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException("creating topic " + message.topic() + " for a due message", e);
            }
        }
        return Decision.append(message);
    }
}
