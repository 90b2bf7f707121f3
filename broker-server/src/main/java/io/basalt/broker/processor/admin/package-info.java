/**
 * The admin side of the broker, what RocketMQ's admin tool ({@code mqadmin}, {@code DefaultMQAdminExt})
 * sends: topic administration and statistics ({@link io.basalt.broker.processor.admin.TopicAdminProcessor}),
 * consumer progress ({@link io.basalt.broker.processor.admin.ConsumerAdminProcessor}), consumer group
 * configs ({@link io.basalt.broker.processor.admin.SubscriptionGroupAdminProcessor}), the producers registered
 * here ({@link io.basalt.broker.processor.admin.ProducerAdminProcessor}), message queries by
 * key and id ({@link io.basalt.broker.processor.admin.QueryMessageProcessor}), runtime figures
 * ({@link io.basalt.broker.processor.admin.BrokerRuntimeInfoProcessor}) and the topic lists a NameServer
 * answers ({@link io.basalt.broker.processor.admin.NameServerTopicProcessor}). Each processor takes its
 * collaborators in its constructor; {@code BrokerController} registers them on the admin executor.
 */
package io.basalt.broker.processor.admin;
