package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.auth.NeededResources.Need;
import io.basalt.broker.auth.Permission;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What each RPC needs, as RocketMQ's proxy authorizes it. */
class CallNeedsTest {
    private static Resource r(String name) {
        return Resource.newBuilder().setName(name).build();
    }

    private static final Settings PRODUCER = Settings.newBuilder().setClientType(ClientType.PRODUCER)
        .setPublishing(Publishing.newBuilder().addTopics(r("orders")).addTopics(r("audit"))).build();
    private static final Settings CONSUMER = Settings.newBuilder().setClientType(ClientType.PUSH_CONSUMER)
        .setSubscription(Subscription.newBuilder().setGroup(r("billing"))
            .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(r("orders")))).build();

    private final CallNeeds needs = new CallNeeds(id -> Optional.ofNullable(switch (id) {
        case "producer" -> PRODUCER;
        case "consumer" -> CONSUMER;
        default -> null;
    }));

    @Test
    void sendsAndTransactionsPublishRoutesNeedEither() {
        assertEquals(List.of(Need.topic("orders", Permission.PUB)), needs.of(SendMessageRequest.newBuilder()
            .addMessages(Message.newBuilder().setTopic(r("orders"))).build(), "x"));
        assertEquals(List.of(Need.topic("orders", Permission.PUB)), needs.of(EndTransactionRequest.newBuilder()
            .setTopic(r("orders")).build(), "x"));
        assertEquals(List.of(Need.topic("orders", Permission.ANY)), needs.of(QueryRouteRequest.newBuilder()
            .setTopic(r("orders")).build(), "x"));
    }

    @Test
    void consumptionSubscribesTheGroupToTheTopic() {
        List<Need> groupAndTopic = List.of(Need.group("billing"), Need.topic("orders", Permission.SUB));
        assertEquals(groupAndTopic, needs.of(ReceiveMessageRequest.newBuilder().setGroup(r("billing"))
            .setMessageQueue(MessageQueue.newBuilder().setTopic(r("orders"))).build(), "x"));
        assertEquals(groupAndTopic, needs.of(AckMessageRequest.newBuilder().setGroup(r("billing"))
            .setTopic(r("orders")).build(), "x"));
        assertEquals(List.of(Need.group("billing")), needs.of(AckMessageRequest.newBuilder().setGroup(r("billing"))
            .setTopic(r("%RETRY%billing")).build(), "x"), "a retry topic is its group");
    }

    @Test
    void settingsAndHeartbeatsNeedTheClientsTopicsAndGroup() {
        assertEquals(List.of(Need.topic("orders", Permission.PUB), Need.topic("audit", Permission.PUB)),
            needs.of(TelemetryCommand.newBuilder().setSettings(PRODUCER).build(), "new-client"));
        assertEquals(List.of(Need.group("billing"), Need.topic("orders", Permission.SUB)),
            needs.of(HeartbeatRequest.newBuilder().setGroup(r("billing")).build(), "consumer"));
        assertEquals(List.of(Need.topic("orders", Permission.PUB), Need.topic("audit", Permission.PUB)),
            needs.of(HeartbeatRequest.getDefaultInstance(), "producer"));
        assertEquals(List.of(), needs.of(HeartbeatRequest.getDefaultInstance(), "unknown"));
        assertEquals(List.of(), needs.of(NotifyClientTerminationRequest.getDefaultInstance(), "producer"),
            "a producer may always leave");
        assertEquals(List.of(Need.group("billing")), needs.of(NotifyClientTerminationRequest.newBuilder()
            .setGroup(r("billing")).build(), "consumer"));
    }
}
