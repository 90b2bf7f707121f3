/**
 * Committed consumer offsets per group, topic and queue, in RocketMQ's {@code config/consumerOffset.json},
 * persisted periodically and on shutdown ({@link io.basalt.broker.offset.ConsumerOffsetManager}).
 */
package io.basalt.broker.offset;
