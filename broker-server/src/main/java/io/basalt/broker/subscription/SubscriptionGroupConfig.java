package io.basalt.broker.subscription;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One consumer group's configuration, RocketMQ 5.2.0's {@code SubscriptionGroupConfig}: the element of
 * {@code subscriptionGroup.json} and of the subscription-group admin bodies. Immutable.
 *
 * <p>Basalt acts on {@code consumeEnable} (a disabled group's pulls are refused), {@code consumeBroadcastEnable}
 * (a broadcasting group's pulls are refused), {@code notifyConsumerIdsChangedEnable} (membership notifications),
 * {@code retryQueueNums} (queues of the group's {@code %RETRY%} topic) and {@code retryMaxTimes} (send-back to the
 * DLQ); README's Consumers section says which of the other fields act and why the rest are only stored and
 * answered as given, so that RocketMQ's tools and files round-trip.
 *
 * @param groupRetryPolicy    RocketMQ's {@code GroupRetryPolicy} as a JSON object tree, kept as given
 *                            (default {@code {"type":"CUSTOMIZED"}})
 * @param brokerId            the broker consumers of this group should read from (0 = master)
 * @param subscriptionDataSet RocketMQ's optional {@code Set<SimpleSubscriptionData>}; empty when not given
 * @param attributes          5.x group attributes; RocketMQ 5.2.0 defines none
 */
public record SubscriptionGroupConfig(String groupName, boolean consumeEnable, boolean consumeFromMinEnable,
                                      boolean consumeBroadcastEnable, boolean consumeMessageOrderly, int retryQueueNums,
                                      int retryMaxTimes, Map<String, Object> groupRetryPolicy, long brokerId,
                                      long whichBrokerWhenConsumeSlowly, boolean notifyConsumerIdsChangedEnable,
                                      int groupSysFlag, int consumeTimeoutMinute,
                                      Set<SimpleSubscriptionData> subscriptionDataSet, Map<String, String> attributes) {

    /** RocketMQ's default retry policy: the customized one, i.e. the broker's delay levels. */
    public static final Map<String, Object> DEFAULT_GROUP_RETRY_POLICY = Map.of("type", "CUSTOMIZED");

    public SubscriptionGroupConfig {
        // a parsed policy may hold JSON nulls, which Map.copyOf refuses
        groupRetryPolicy = Collections.unmodifiableMap(new LinkedHashMap<>(groupRetryPolicy));
        subscriptionDataSet = Collections.unmodifiableSet(new LinkedHashSet<>(subscriptionDataSet));
        attributes = Map.copyOf(attributes);
    }

    /** A group with RocketMQ's defaults: what auto-creation records. */
    public static SubscriptionGroupConfig defaults(String groupName) {
        return new SubscriptionGroupConfig(groupName, true, true, true, false, 1, 16, DEFAULT_GROUP_RETRY_POLICY, 0, 1,
            true, 0, 15, Set.of(), Map.of());
    }

    public SubscriptionGroupConfig withAttributes(Map<String, String> newAttributes) {
        return new SubscriptionGroupConfig(groupName, consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
            consumeMessageOrderly, retryQueueNums, retryMaxTimes, groupRetryPolicy, brokerId, whichBrokerWhenConsumeSlowly,
            notifyConsumerIdsChangedEnable, groupSysFlag, consumeTimeoutMinute, subscriptionDataSet, newAttributes);
    }

    /** This group with its pulls allowed ({@code true}) or refused with NO_PERMISSION. */
    public SubscriptionGroupConfig withConsumeEnable(boolean value) {
        return new SubscriptionGroupConfig(groupName, value, consumeFromMinEnable, consumeBroadcastEnable,
            consumeMessageOrderly, retryQueueNums, retryMaxTimes, groupRetryPolicy, brokerId, whichBrokerWhenConsumeSlowly,
            notifyConsumerIdsChangedEnable, groupSysFlag, consumeTimeoutMinute, subscriptionDataSet, attributes);
    }

    /** This group with {@code value} retry queues. */
    public SubscriptionGroupConfig withRetryQueueNums(int value) {
        return new SubscriptionGroupConfig(groupName, consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
            consumeMessageOrderly, value, retryMaxTimes, groupRetryPolicy, brokerId, whichBrokerWhenConsumeSlowly,
            notifyConsumerIdsChangedEnable, groupSysFlag, consumeTimeoutMinute, subscriptionDataSet, attributes);
    }

    /** This group with a message retried at most {@code value} times before it goes to the DLQ. */
    public SubscriptionGroupConfig withRetryMaxTimes(int value) {
        return new SubscriptionGroupConfig(groupName, consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
            consumeMessageOrderly, retryQueueNums, value, groupRetryPolicy, brokerId, whichBrokerWhenConsumeSlowly,
            notifyConsumerIdsChangedEnable, groupSysFlag, consumeTimeoutMinute, subscriptionDataSet, attributes);
    }

    /** This group meant to subscribe to {@code value}. */
    public SubscriptionGroupConfig withSubscriptionDataSet(Set<SimpleSubscriptionData> value) {
        return new SubscriptionGroupConfig(groupName, consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
            consumeMessageOrderly, retryQueueNums, retryMaxTimes, groupRetryPolicy, brokerId, whichBrokerWhenConsumeSlowly,
            notifyConsumerIdsChangedEnable, groupSysFlag, consumeTimeoutMinute, value, attributes);
    }

    /** RocketMQ's {@code SimpleSubscriptionData}: a topic the group is meant to subscribe to. */
    public record SimpleSubscriptionData(String topic, String expressionType, String expression, long version) {
    }
}
