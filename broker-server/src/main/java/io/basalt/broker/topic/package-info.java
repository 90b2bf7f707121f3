/**
 * The broker's topics: {@link io.basalt.broker.topic.TopicConfigManager} keeps them in RocketMQ's
 * {@code config/topics.json} (written atomically with a validated backup), creates RocketMQ's start-up topics
 * and knows its reserved names ({@link io.basalt.broker.topic.SystemTopics}), applies RocketMQ's TBW102
 * auto-creation rule, validates names ({@link io.basalt.broker.topic.TopicValidator}) and topic attributes
 * ({@link io.basalt.broker.topic.TopicAttributes}).
 */
package io.basalt.broker.topic;
