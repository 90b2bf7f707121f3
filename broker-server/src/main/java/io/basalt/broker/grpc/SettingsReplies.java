package io.basalt.broker.grpc;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.CustomizedBackoff;
import apache.rocketmq.v2.ExponentialBackoff;
import apache.rocketmq.v2.Metric;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.RetryPolicy;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import com.google.protobuf.Duration;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The server's answer to a client's Telemetry {@code settings} (§2.5): the client's own fields echoed, plus what the
 * client takes from the server and fails to start without: a producer's exponential backoff, maximum body size and
 * message-type validation; a consumer's FIFO flag, batch size, long-polling timeout and its group's retry policy.
 */
final class SettingsReplies {
    static final int PRODUCER_MAX_ATTEMPTS = 3;
    static final Duration PRODUCER_INITIAL_BACKOFF = Duration.newBuilder().setNanos(10_000_000).build();
    static final Duration PRODUCER_MAX_BACKOFF = Duration.newBuilder().setSeconds(1).build();
    static final int RECEIVE_BATCH_SIZE = 32;
    static final Duration LONG_POLLING_TIMEOUT = Duration.newBuilder().setSeconds(20).build();
    /** RocketMQ's delay levels 3 to 18: the default (CUSTOMIZED) retry intervals of a consumer group. */
    static final List<Long> CUSTOMIZED_SECONDS = List.of(1L, 5L, 10L, 30L, 60L, 120L, 180L, 240L, 300L, 360L, 420L,
        480L, 540L, 600L, 1200L, 1800L, 3600L, 7200L);

    private final int maxBodySize;
    private final Function<String, Optional<SubscriptionGroupConfig>> groups;

    SettingsReplies(int maxBodySize, Function<String, Optional<SubscriptionGroupConfig>> groups) {
        this.maxBodySize = maxBodySize;
        this.groups = groups;
    }

    Settings reply(Settings client) {
        Settings.Builder reply = Settings.newBuilder(client).setMetric(Metric.newBuilder().setOn(false));
        if (client.getClientType() == ClientType.PRODUCER) {
            reply.setBackoffPolicy(RetryPolicy.newBuilder().setMaxAttempts(PRODUCER_MAX_ATTEMPTS)
                .setExponentialBackoff(ExponentialBackoff.newBuilder().setInitial(PRODUCER_INITIAL_BACKOFF)
                    .setMax(PRODUCER_MAX_BACKOFF).setMultiplier(2)));
            reply.setPublishing(Publishing.newBuilder(client.getPublishing()).setMaxBodySize(maxBodySize)
                .setValidateMessageType(true));
        } else if (client.hasSubscription()) {
            Subscription sub = client.getSubscription();
            SubscriptionGroupConfig group = groups.apply(sub.getGroup().getName())
                .orElse(SubscriptionGroupConfig.defaults(sub.getGroup().getName()));
            Subscription.Builder s = Subscription.newBuilder(sub).setFifo(group.consumeMessageOrderly())
                .setReceiveBatchSize(RECEIVE_BATCH_SIZE);
            if (client.getClientType() == ClientType.PUSH_CONSUMER || !sub.hasLongPollingTimeout()) {
                s.setLongPollingTimeout(LONG_POLLING_TIMEOUT);
            }
            reply.setSubscription(s);
            reply.setBackoffPolicy(retryPolicy(group));
        }
        return reply.build();
    }

    /** The group's retry policy: EXPONENTIAL when its groupRetryPolicy says so, else the customized intervals. */
    static RetryPolicy retryPolicy(SubscriptionGroupConfig group) {
        RetryPolicy.Builder policy = RetryPolicy.newBuilder().setMaxAttempts(group.retryMaxTimes() + 1);
        Map<String, Object> configured = group.groupRetryPolicy();
        if ("EXPONENTIAL".equals(String.valueOf(configured.get("type")))) {
            return policy.setExponentialBackoff(ExponentialBackoff.newBuilder()
                .setInitial(Duration.newBuilder().setSeconds(5)).setMax(Duration.newBuilder().setSeconds(7200))
                .setMultiplier(2)).build();
        }
        CustomizedBackoff.Builder backoff = CustomizedBackoff.newBuilder();
        for (long s : CUSTOMIZED_SECONDS) {
            backoff.addNext(Duration.newBuilder().setSeconds(s));
        }
        return policy.setCustomizedBackoff(backoff).build();
    }
}
