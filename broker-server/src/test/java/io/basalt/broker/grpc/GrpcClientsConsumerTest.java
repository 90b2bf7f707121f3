package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** 5.x consumers in the broker's consumer registry, as RocketMQ's proxy registers them, and out of the remoting rebalance. */
class GrpcClientsConsumerTest {
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ClientManager registry = new ClientManager(120_000, clock::get);
    private final GrpcClients clients = new GrpcClients(registry, null, offset -> null, id -> null);

    static Settings consumer(ClientType type, String group, String topic, FilterType filter, String expression) {
        return Settings.newBuilder().setClientType(type).setSubscription(Subscription.newBuilder()
            .setGroup(Resource.newBuilder().setName(group))
            .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(Resource.newBuilder().setName(topic))
                .setExpression(FilterExpression.newBuilder().setType(filter).setExpression(expression)))).build();
    }

    static ClientMetadata metadata(String clientId) {
        return new ClientMetadata(clientId, "JAVA", "5.0.7", "", new InetSocketAddress("127.0.0.1", 40000));
    }

    private GrpcClientConnection settleWithStream(String clientId, Settings settings) {
        GrpcClients.Session s = clients.settle(metadata(clientId), settings);
        s.connection().attach(new Recorder());
        return s.connection();
    }

    @Test
    void aPushConsumerIsRegisteredAsConsumingPassivelyWithItsLanguageVersionAndSubscription() {
        settleWithStream("push-1", consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "TagA || TagB"));
        ConsumerGroupInfo group = registry.consumerGroup("cg");
        ConsumerGroupInfo.Member m = group.members().get(0);
        assertEquals("push-1", m.clientId());
        assertEquals("CONSUME_PASSIVELY", m.consumeType());
        assertEquals("CLUSTERING", m.messageModel());
        assertEquals("CONSUME_FROM_LAST_OFFSET", m.consumeFromWhere());
        assertEquals("JAVA", m.language());
        assertEquals(ClientVersions.ordinalOf("5.0.7"), m.version());
        assertTrue(m.version() > 0);
        assertEquals("grpc", m.protocol());
        SubscriptionData sub = group.subscription("T");
        assertEquals(Set.of("TagA", "TagB"), sub.tagsSet());
        assertEquals("TAG", sub.expressionType());
        assertEquals("CLUSTERING", group.messageModel());
    }

    @Test
    void aConsumersGroupAndRetryTopicAreRecordedAsAHeartbeatRecordsThem() {
        List<String> recorded = new CopyOnWriteArrayList<>();
        clients.recordGroupsWith(recorded::add);
        settleWithStream("push-1", consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "*"));
        assertEquals(List.of("cg"), recorded);
    }

    @Test
    void aSimpleConsumerConsumesActivelyAndKeepsItsSqlExpression() {
        settleWithStream("simple-1", consumer(ClientType.SIMPLE_CONSUMER, "cg", "T", FilterType.SQL, "a > 1"));
        ConsumerGroupInfo.Member m = registry.consumerGroup("cg").members().get(0);
        assertEquals("CONSUME_ACTIVELY", m.consumeType());
        SubscriptionData sub = registry.consumerGroup("cg").subscription("T");
        assertEquals("SQL92", sub.expressionType());
        assertEquals("a > 1", sub.subString());
    }

    @Test
    void aGrpcConsumerIsNeitherInTheRemotingRebalanceNorNotifiedOfIt() {
        settleWithStream("grpc-1", consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "*"));
        CountingConnection remoting = new CountingConnection();
        registry.registerConsumer("cg", new ConsumerGroupInfo.Member("remoting-1", "/127.0.0.1:1", "CONSUME_PASSIVELY",
            "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", clock.get(), remoting, "JAVA", 1), List.of());
        assertEquals(List.of("grpc-1", "remoting-1"), registry.consumerGroup("cg").clientIds());
        assertEquals(List.of("remoting-1"), registry.consumerGroup("cg").remotingClientIds());
        assertEquals(1, remoting.oneways.get(), "the remoting member is told of the change");

        CountingConnection grpcLike = new CountingConnection("grpc");
        registry.registerConsumer("cg", new ConsumerGroupInfo.Member("grpc-2", "/127.0.0.1:2", "CONSUME_PASSIVELY",
            "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", clock.get(), grpcLike, "JAVA", 1), List.of());
        assertEquals(0, grpcLike.oneways.get(), "a gRPC member gets no NOTIFY_CONSUMER_IDS_CHANGED");
    }

    @Test
    void terminationUnregistersAndAClosedStreamExpires() {
        settleWithStream("push-1", consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "*"));
        Recorder stream = new Recorder();
        GrpcClientConnection second = clients.settle(metadata("push-2"), consumer(ClientType.PUSH_CONSUMER, "cg", "T",
            FilterType.TAG, "*")).connection();
        second.attach(stream);
        assertTrue(clients.terminate("push-1"));
        assertEquals(List.of("push-2"), registry.consumerGroup("cg").clientIds());

        second.detach(stream);
        assertEquals(1, registry.scanExpired());
        assertTrue(registry.consumerGroup("cg").isEmpty());
    }

    @Test
    void aHeartbeatKeepsTheConsumerPastTheExpiry() {
        settleWithStream("push-1", consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "*"));
        clock.addAndGet(100_000);
        assertTrue(clients.heartbeat("push-1"));
        clock.addAndGet(100_000);
        assertEquals(0, registry.scanExpired());
        clock.addAndGet(30_000);
        assertEquals(1, registry.scanExpired());
    }

    @Test
    void aProducerIsNotAConsumer() {
        clients.settle(metadata("p-1"), Settings.newBuilder().setClientType(ClientType.PRODUCER).setPublishing(
            apache.rocketmq.v2.Publishing.newBuilder().addTopics(Resource.newBuilder().setName("T"))).build());
        assertTrue(registry.consumerGroupNames().isEmpty());
        assertNull(registry.consumerGroup("T"));
        assertFalse(registry.producerGroupNames().isEmpty());
    }

    static final class Recorder implements StreamObserver<TelemetryCommand> {
        final List<TelemetryCommand> sent = new CopyOnWriteArrayList<>();

        @Override
        public void onNext(TelemetryCommand value) {
            sent.add(value);
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
        }
    }

    private static final class CountingConnection implements RemotingConnection {
        final AtomicInteger oneways = new AtomicInteger();
        private final String protocol;

        CountingConnection() {
            this("remoting");
        }

        CountingConnection(String protocol) {
            this.protocol = protocol;
        }

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public String protocol() {
            return protocol;
        }

        @Override
        public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            oneways.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
        }
    }
}
