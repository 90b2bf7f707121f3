package io.basalt.broker.assignment;

/**
 * How a consumer group reads a topic (RocketMQ's {@code MessageRequestMode}): PULL, the client pulls the queues it
 * was assigned and keeps their offsets; POP, the broker hands out messages and keeps them invisible until acked.
 */
public enum MessageRequestMode {
    PULL,
    POP
}
