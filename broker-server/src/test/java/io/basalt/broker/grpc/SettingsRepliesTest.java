package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.RetryPolicy;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsRepliesTest {
    @Test
    void aProducerGetsExponentialBackoffTheMaximumBodySizeAndTypeValidation() {
        Settings reply = new SettingsReplies(4 << 20, g -> Optional.empty()).reply(Settings.newBuilder()
            .setClientType(ClientType.PRODUCER).setPublishing(Publishing.newBuilder()
                .addTopics(Resource.newBuilder().setName("T"))).build());
        assertEquals(3, reply.getBackoffPolicy().getMaxAttempts());
        assertEquals(RetryPolicy.StrategyCase.EXPONENTIAL_BACKOFF, reply.getBackoffPolicy().getStrategyCase());
        assertEquals(4 << 20, reply.getPublishing().getMaxBodySize(), "0 would refuse every send");
        assertTrue(reply.getPublishing().getValidateMessageType());
        assertEquals("T", reply.getPublishing().getTopics(0).getName());
        assertFalse(reply.getMetric().getOn());
    }

    @Test
    void aPushConsumerGetsItsGroupsOrderAndRetryPolicy() {
        SubscriptionGroupConfig orderly = new SubscriptionGroupConfig("g", true, true, true, true, 1, 5,
            Map.of("type", "EXPONENTIAL"), 0, 1, true, 0, 15, Set.of(), Map.of());
        Settings reply = new SettingsReplies(1, g -> Optional.of(orderly)).reply(Settings.newBuilder()
            .setClientType(ClientType.PUSH_CONSUMER).setSubscription(Subscription.newBuilder()
                .setGroup(Resource.newBuilder().setName("g"))).build());
        assertTrue(reply.getSubscription().getFifo());
        assertEquals(32, reply.getSubscription().getReceiveBatchSize());
        assertEquals(20, reply.getSubscription().getLongPollingTimeout().getSeconds());
        assertEquals(6, reply.getBackoffPolicy().getMaxAttempts());
        assertEquals(RetryPolicy.StrategyCase.EXPONENTIAL_BACKOFF, reply.getBackoffPolicy().getStrategyCase());

        Settings defaults = new SettingsReplies(1, g -> Optional.empty()).reply(Settings.newBuilder()
            .setClientType(ClientType.PUSH_CONSUMER).setSubscription(Subscription.newBuilder()
                .setGroup(Resource.newBuilder().setName("g"))).build());
        assertFalse(defaults.getSubscription().getFifo());
        assertEquals(17, defaults.getBackoffPolicy().getMaxAttempts());
        assertEquals(18, defaults.getBackoffPolicy().getCustomizedBackoff().getNextCount());
    }

    @Test
    void settingsWithoutPublishingOrSubscriptionOrWithBadNamesAreRefused() {
        assertEquals("there is no publishing or subscription data in settings",
            TelemetrySession.invalid(Settings.newBuilder().setClientType(ClientType.PRODUCER).build()));
        assertTrue(TelemetrySession.invalid(Settings.newBuilder().setPublishing(Publishing.newBuilder()
            .addTopics(Resource.newBuilder().setName("bad topic"))).build()).startsWith("illegal topic"));
        assertNull(TelemetrySession.invalid(Settings.newBuilder().setPublishing(Publishing.newBuilder()
            .addTopics(Resource.newBuilder().setName("T"))).build()));
    }
}
