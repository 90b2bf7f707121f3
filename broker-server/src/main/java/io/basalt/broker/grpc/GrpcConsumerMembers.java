package io.basalt.broker.grpc;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.SubscriptionEntry;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.remoting.processor.RemotingConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * A 5.x consumer's Telemetry settings as a member of the broker's consumer registry, the way RocketMQ's proxy
 * registers it: a push consumer consumes passively, a simple consumer actively; both cluster and, having no offset
 * of their own, consume from the last offset; the language and version are those of the client's call headers; the
 * subscriptions are the settings' entries (TAG or SQL92).
 */
final class GrpcConsumerMembers {
    static final String CLUSTERING = "CLUSTERING";
    static final String CONSUME_FROM_LAST_OFFSET = "CONSUME_FROM_LAST_OFFSET";

    private GrpcConsumerMembers() {
    }

    static boolean isConsumer(Settings settings) {
        return settings.getClientType() == ClientType.PUSH_CONSUMER
            || settings.getClientType() == ClientType.SIMPLE_CONSUMER;
    }

    /** The consumer group the settings name. */
    static String group(Settings settings) {
        return settings.getSubscription().getGroup().getName();
    }

    /** RocketMQ's ConsumeType name of a consumer client type. */
    static String consumeType(ClientType type) {
        return switch (type) {
            case PUSH_CONSUMER -> "CONSUME_PASSIVELY";
            case SIMPLE_CONSUMER -> "CONSUME_ACTIVELY";
            default -> throw new IllegalArgumentException("not a consumer client type: " + type);
        };
    }

    static ConsumerGroupInfo.Member member(ClientMetadata metadata, Settings settings, RemotingConnection connection,
        long nowMs) {
        return new ConsumerGroupInfo.Member(metadata.clientId(), metadata.remoteHost(),
            consumeType(settings.getClientType()), CLUSTERING, CONSUME_FROM_LAST_OFFSET, nowMs, connection,
            metadata.languageName(), ClientVersions.ordinalOf(metadata.version()));
    }

    /** The settings' subscription entries; {@code subVersion} versions them as a heartbeat's would be. */
    static List<SubscriptionData> subscriptions(Settings settings, long subVersion) {
        List<SubscriptionData> subs = new ArrayList<>();
        for (SubscriptionEntry e : settings.getSubscription().getSubscriptionsList()) {
            String type = e.getExpression().getType() == FilterType.SQL ? "SQL92" : "TAG";
            subs.add(SubscriptionData.of(e.getTopic().getName(), e.getExpression().getExpression(), subVersion, type));
        }
        return subs;
    }
}
