/**
 * The broker's consumer groups: {@link io.basalt.broker.subscription.SubscriptionGroupManager} keeps each
 * group's {@link io.basalt.broker.subscription.SubscriptionGroupConfig} in RocketMQ's
 * {@code config/subscriptionGroup.json} (written atomically with a validated backup), creates groups on first
 * use as RocketMQ's {@code autoCreateSubscriptionGroup} does, and validates names
 * ({@link io.basalt.broker.subscription.GroupValidator}).
 */
package io.basalt.broker.subscription;
