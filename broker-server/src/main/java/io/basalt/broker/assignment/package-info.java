/**
 * The broker-side rebalance of push consumers with {@code clientRebalance=false}: the request mode (PULL or POP) of
 * each topic and group ({@link io.basalt.broker.assignment.MessageRequestModes}, RocketMQ's
 * {@code config/messageRequestMode.json}), the topic's queues from its route ({@link
 * io.basalt.broker.assignment.TopicQueues}) and their allocation to the group's clients
 * ({@link io.basalt.broker.assignment.QueueAllocation}).
 */
package io.basalt.broker.assignment;
