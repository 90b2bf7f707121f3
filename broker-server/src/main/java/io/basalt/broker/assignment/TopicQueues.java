package io.basalt.broker.assignment;

import java.util.List;
import java.util.Optional;

import io.basalt.broker.protocol.MessageQueue;

/** Where QUERY_ASSIGNMENT takes a topic's readable queues from: the route consumers see. */
@FunctionalInterface
public interface TopicQueues {
    /**
     * The topic's readable queues on every broker of its route; empty when the topic has no route.
     *
     * @throws RouteUnavailableException when the route cannot be learnt now (no NameServer answered)
     */
    Optional<List<MessageQueue>> readableQueues(String topic) throws RouteUnavailableException;

    final class RouteUnavailableException extends Exception {
        private static final long serialVersionUID = 1L;

        public RouteUnavailableException(String message) {
            super(message);
        }
    }
}
