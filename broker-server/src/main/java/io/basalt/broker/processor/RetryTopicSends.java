package io.basalt.broker.processor;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.retry.RetryBudget;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.retry.RetryTopics;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.MessageProperties;

/**
 * Sends to a {@code %RETRY%} topic, RocketMQ 5.2.0's {@code SendMessageProcessor.handleRetryAndDLQ}: the orderly
 * consumer giving up on a message, and the concurrent consumer's fallback when CONSUMER_SEND_MSG_BACK failed, both
 * send the message to {@code %RETRY%<group>} with the next reconsume count in header {@code reconsumeTimes}. The
 * message goes to {@code %DLQ%<group>} instead (queue 0, created with 1 queue and perm 6) when
 *
 * <ul>
 *   <li>it used up its retries ({@link RetryBudget}; the client's {@code maxReconsumeTimes} when the request's
 *       version is at least V3_4_9, else the group's {@code retryMaxTimes}), or</li>
 *   <li>the group holds an unexpired orderly queue lock on this broker: an orderly consumer re-consumes in place
 *       and only sends a message to {@code %RETRY%} once it gave up on it.</li>
 * </ul>
 *
 * A DLQ write carries {@code DELAY=-1} and none of the client's {@code TIMER_*} properties, so neither the delay
 * nor the timer transform of the put path holds it back: a dead letter is never delayed (apache/rocketmq#2724).
 * Sends to other topics are not touched. Thread-safe.
 */
final class RetryTopicSends {
    static final List<String> TIMER_PROPERTIES = List.of("TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS",
        "TIMER_DEL_UNIQKEY");
    static final String DLQ_DELAY_LEVEL = "-1";

    /** What becomes of a send to a retry topic. */
    sealed interface Route permits Retry, DeadLetter, Refused {
    }

    /** Refused; nothing is stored. */
    record Refused(int code, String remark) implements Route {
    }

    /** Stored as sent, in the retry topic (the client's DELAY makes it a delayed record). */
    record Retry(String group) implements Route {
    }

    /** Stored in queue 0 of {@code topic}, the group's DLQ, with {@code properties} instead of the client's. */
    record DeadLetter(String group, String topic, String properties) implements Route {
    }

    private final SubscriptionGroupManager groups;
    private final QueueLockManager locks;
    private final TopicConfigManager topics;
    private final RetryCounts counts;

    /**
     * @param locks  the orderly consumers' queue locks on this broker
     * @param counts where retries and dead letters of sends are counted per group
     */
    RetryTopicSends(SubscriptionGroupManager groups, QueueLockManager locks, TopicConfigManager topics, RetryCounts counts) {
        this.groups = groups;
        this.locks = locks;
        this.topics = topics;
        this.counts = counts;
    }

    RetryCounts counts() {
        return counts;
    }

    /**
     * Routes a send to {@code header.getTopic()}, a retry topic.
     *
     * @param version    the request's version (the client's release)
     * @param properties the client's properties string
     */
    Route route(SendMessageRequestHeader header, int version, String properties) throws IOException {
        String group = RetryTopics.groupOf(header.getTopic());
        Optional<SubscriptionGroupConfig> config = groups.findOrAutoCreate(group);
        if (config.isEmpty()) {
            return new Refused(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
                "subscription group not exist, " + group + " (autoCreateSubscriptionGroup is off, or the name is not"
                    + " a valid group)");
        }
        int max = version >= ConsumerSendMsgBackProcessor.MAX_RECONSUME_TIMES_SINCE_VERSION
            && header.getMaxReconsumeTimes() != null ? header.getMaxReconsumeTimes() : config.get().retryMaxTimes();
        int reconsumeTimes = header.getReconsumeTimes() == null ? 0 : header.getReconsumeTimes();
        if (!RetryBudget.exhausted(reconsumeTimes, max) && !locks.holdsUnexpiredLock(group)) {
            return new Retry(group);
        }
        String dlq = RetryTopics.dlqTopic(group);
        TopicConfig dlqConfig = topics.createIfAbsent(dlq, RetryTopics.DLQ_QUEUE_NUMS, Perm.READ | Perm.WRITE);
        if (!dlqConfig.isWritable()) {
            return new Refused(ResponseCode.NO_PERMISSION,
                "the topic[" + dlq + "] sending message is forbidden");
        }
        Map<String, String> map = new LinkedHashMap<>(MessageProperties.parse(properties));
        map.put(MessageProperties.DELAY_TIME_LEVEL, DLQ_DELAY_LEVEL);
        TIMER_PROPERTIES.forEach(map::remove);
        return new DeadLetter(group, dlq, MessageProperties.toPropertiesString(map));
    }
}
