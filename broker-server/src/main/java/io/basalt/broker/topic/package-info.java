/**
 * The broker's topics: {@link io.basalt.broker.topic.TopicConfigManager} keeps them in RocketMQ's
 * {@code config/topics.json} (written atomically with a validated backup), applies RocketMQ's TBW102
 * auto-creation rule and validates names ({@link io.basalt.broker.topic.TopicValidator}).
 */
package io.basalt.broker.topic;
