package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.Permission;
import apache.rocketmq.v2.QueryAssignmentRequest;
import apache.rocketmq.v2.QueryAssignmentResponse;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.SystemProperties;
import apache.rocketmq.v2.TransactionResolution;
import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.metrics.PrometheusText;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.shaded.com.google.protobuf.ByteString;
import org.apache.rocketmq.shaded.io.grpc.ManagedChannel;
import org.apache.rocketmq.shaded.io.grpc.ManagedChannelBuilder;
import org.apache.rocketmq.shaded.io.grpc.Metadata;
import org.apache.rocketmq.shaded.io.grpc.stub.MetadataUtils;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's gRPC endpoint request by request, through the generated stub the official 5.x SDK ships (its shaded
 * gRPC): the application status codes of refusals the SDK itself never lets through (missing client id, oversize
 * body, reserved property, message type conflict), routes that name this broker's own gRPC endpoint with concrete
 * message types, the assignment of a non-orderly group, NOT_IMPLEMENTED for POP consumption, a waiting receive ended
 * by its client's termination, and the log line for a
 * remoting client that connects to the gRPC port.
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client the class's tests share keeps its remoting client for the whole class; the"
        + " client's response-scan pool starts a thread per scan until it reaches its core size, whichever test runs then")
class GrpcProtocolTest {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    static DefaultMQAdminExt admin;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of());
        broker.start();
        admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        admin.createTopic("DefaultCluster", "ProtoFifo", 4, Map.of("+message.type", "FIFO"));
        admin.createTopic("DefaultCluster", "ProtoNormal", 4, Map.of());
        admin.createTopic("DefaultCluster", "ProtoIdle", 1, Map.of());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() ->
            admin.examineTopicConfig(broker.address(), "ProtoNormal") != null
                && admin.examineTopicConfig(broker.address(), "ProtoIdle") != null
                && "FIFO".equals(admin.examineTopicConfig(broker.address(), "ProtoFifo").getAttributes().get("message.type")));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (admin != null) {
            admin.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Runs {@code calls} with a plaintext channel whose calls carry {@code clientId} (none when null). */
    private static void withStub(String clientId, StubCalls calls) throws Exception {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", broker.grpcPort()).usePlaintext().build();
        try {
            calls.run(MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers(clientId)))
                .withDeadlineAfter(10, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** The SDK's headers for {@code clientId} (none when null). */
    private static Metadata headers(String clientId) {
        Metadata headers = new Metadata();
        if (clientId != null) {
            headers.put(Metadata.Key.of("x-mq-client-id", Metadata.ASCII_STRING_MARSHALLER), clientId);
            headers.put(Metadata.Key.of("x-mq-language", Metadata.ASCII_STRING_MARSHALLER), "JAVA");
            headers.put(Metadata.Key.of("x-mq-client-version", Metadata.ASCII_STRING_MARSHALLER), "5.0.7");
        }
        return headers;
    }

    interface StubCalls {
        void run(MessagingServiceGrpc.MessagingServiceBlockingStub stub) throws Exception;
    }

    private static Resource topic(String name) {
        return Resource.newBuilder().setName(name).build();
    }

    private static Message message(String topic, byte[] body, MessageType type) {
        return Message.newBuilder().setTopic(topic(topic)).setBody(ByteString.copyFrom(body))
            .setSystemProperties(SystemProperties.newBuilder().setMessageId("01TESTMESSAGEID" + System.nanoTime())
                .setMessageType(type).setBodyEncoding(apache.rocketmq.v2.Encoding.IDENTITY)).build();
    }

    @Test
    void everyCallNeedsTheClientId() throws Exception {
        withStub(null, stub -> assertEquals(Code.CLIENT_ID_REQUIRED,
            stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(topic("ProtoFifo")).build()).getStatus().getCode()));
    }

    @Test
    void routeNamesThisBrokersGrpcEndpointAndTheTopicsMessageType() throws Exception {
        withStub("proto-client", stub -> {
            QueryRouteResponse route = stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(topic("ProtoFifo")).build());
            assertEquals(Code.OK, route.getStatus().getCode(), route.getStatus().getMessage());
            assertEquals(4, route.getMessageQueuesCount());
            for (MessageQueue q : route.getMessageQueuesList()) {
                assertEquals(Permission.READ_WRITE, q.getPermission());
                assertEquals(List.of(MessageType.FIFO), q.getAcceptMessageTypesList());
                assertEquals("broker-a", q.getBroker().getName());
                assertEquals(0, q.getBroker().getId());
                assertEquals("127.0.0.1", q.getBroker().getEndpoints().getAddresses(0).getHost());
                assertEquals(broker.grpcPort(), q.getBroker().getEndpoints().getAddresses(0).getPort());
            }
            QueryRouteResponse normal = stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(topic("ProtoNormal")).build());
            assertEquals(List.of(MessageType.NORMAL), normal.getMessageQueues(0).getAcceptMessageTypesList());
            assertEquals(Code.TOPIC_NOT_FOUND, stub.queryRoute(QueryRouteRequest.newBuilder()
                .setTopic(topic("ProtoMissing")).build()).getStatus().getCode());

            QueryAssignmentResponse assignment = stub.queryAssignment(QueryAssignmentRequest.newBuilder()
                .setTopic(topic("ProtoNormal")).setGroup(topic("proto-group")).build());
            assertEquals(Code.OK, assignment.getStatus().getCode());
            assertEquals(1, assignment.getAssignmentsCount());
            assertEquals(-1, assignment.getAssignments(0).getMessageQueue().getId(), "one assignment: the whole broker");
        });
    }

    @Test
    void sendRefusalsCarryTheirCodes() throws Exception {
        withStub("proto-client", stub -> {
            SendMessageResponse tooLarge = stub.sendMessage(SendMessageRequest.newBuilder()
                .addMessages(message("ProtoNormal", new byte[1024 * 1024 + 1], MessageType.NORMAL)).build());
            assertEquals(Code.MESSAGE_BODY_TOO_LARGE, tooLarge.getStatus().getCode());
            assertEquals(Code.MESSAGE_BODY_TOO_LARGE, tooLarge.getEntries(0).getStatus().getCode());

            Message reserved = message("ProtoNormal", new byte[] {1}, MessageType.NORMAL).toBuilder()
                .putUserProperties("UNIQ_KEY", "mine").build();
            assertEquals(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, stub.sendMessage(SendMessageRequest.newBuilder()
                .addMessages(reserved).build()).getStatus().getCode());

            SendMessageResponse conflict = stub.sendMessage(SendMessageRequest.newBuilder()
                .addMessages(message("ProtoNormal", new byte[] {1}, MessageType.TRANSACTION)).build());
            assertEquals(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, conflict.getStatus().getCode());
            assertTrue(conflict.getStatus().getMessage().contains("+message.type=TRANSACTION"),
                conflict.getStatus().getMessage());

            SendMessageResponse two = stub.sendMessage(SendMessageRequest.newBuilder()
                .addMessages(message("ProtoNormal", new byte[] {1}, MessageType.NORMAL))
                .addMessages(message("ProtoNormal", new byte[] {2}, MessageType.NORMAL)).build());
            assertEquals(Code.OK, two.getStatus().getCode(), two.getStatus().getMessage());
            assertEquals(2, two.getEntriesCount(), "one result entry per message");

            assertEquals(Code.INVALID_TRANSACTION_ID, stub.endTransaction(EndTransactionRequest.newBuilder()
                .setTopic(topic("ProtoNormal")).setTransactionId("no-such-transaction").setMessageId("x")
                .setResolution(TransactionResolution.COMMIT).build()).getStatus().getCode());
        });
    }

    @Test
    void receiveWithoutInvisibleDurationIsRefusedAndHeartbeatNeedsSettings() throws Exception {
        withStub("proto-client", stub -> {
            Iterator<ReceiveMessageResponse> stream = stub.receiveMessage(ReceiveMessageRequest.newBuilder()
                .setGroup(topic("proto-group")).setMessageQueue(MessageQueue.newBuilder().setTopic(topic("ProtoNormal"))
                    .setId(-1)).setBatchSize(1).build());
            ReceiveMessageResponse first = stream.next();
            assertEquals(Code.ILLEGAL_INVISIBLE_TIME, first.getStatus().getCode());
            assertTrue(first.getStatus().getMessage().contains("invisible_duration must be between"));
            assertEquals(Code.UNRECOGNIZED_CLIENT_TYPE, stub.heartbeat(HeartbeatRequest.newBuilder().build())
                .getStatus().getCode());
        });
    }

    @Test
    void aClientsWaitingReceiveEndsWhenItTerminates() throws Exception {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", broker.grpcPort()).usePlaintext().build();
        try {
            var attach = MetadataUtils.newAttachHeadersInterceptor(headers("proto-ending-client"));
            java.util.concurrent.CompletableFuture<List<ReceiveMessageResponse>> answer =
                new java.util.concurrent.CompletableFuture<>();
            List<ReceiveMessageResponse> responses = new java.util.concurrent.CopyOnWriteArrayList<>();
            // nothing is sent to ProtoIdle: the receive waits its whole long-polling time (20 s) unless ended
            MessagingServiceGrpc.newStub(channel).withInterceptors(attach).withDeadlineAfter(60, TimeUnit.SECONDS)
                .receiveMessage(ReceiveMessageRequest.newBuilder().setGroup(topic("proto-ending-group"))
                    .setMessageQueue(MessageQueue.newBuilder().setTopic(topic("ProtoIdle")).setId(-1))
                    .setFilterExpression(apache.rocketmq.v2.FilterExpression.newBuilder()
                        .setType(apache.rocketmq.v2.FilterType.TAG).setExpression("*"))
                    .setBatchSize(1).setInvisibleDuration(seconds(30)).setLongPollingTimeout(seconds(20)).build(),
                    new org.apache.rocketmq.shaded.io.grpc.stub.StreamObserver<>() {
                        @Override
                        public void onNext(ReceiveMessageResponse value) {
                            responses.add(value);
                        }

                        @Override
                        public void onError(Throwable t) {
                            answer.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {
                            answer.complete(responses);
                        }
                    });
            await().atMost(Duration.ofSeconds(10)).until(() -> parkedPops() == 1.0);

            MessagingServiceGrpc.newBlockingStub(channel).withInterceptors(attach).withDeadlineAfter(10, TimeUnit.SECONDS)
                .notifyClientTermination(apache.rocketmq.v2.NotifyClientTerminationRequest.newBuilder()
                    .setGroup(topic("proto-ending-group")).build());
            List<ReceiveMessageResponse> got = answer.get(15, TimeUnit.SECONDS);
            assertEquals(Code.MESSAGE_NOT_FOUND, got.get(0).getStatus().getCode());
            assertTrue(got.get(0).getStatus().getMessage().contains("the client terminated"), got.get(0).toString());
            assertTrue(got.stream().noneMatch(ReceiveMessageResponse::hasMessage), got.toString());
            // its pop no longer waits either
            await().atMost(Duration.ofSeconds(10)).until(() -> parkedPops() == 0.0);
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static org.apache.rocketmq.shaded.com.google.protobuf.Duration seconds(int seconds) {
        return org.apache.rocketmq.shaded.com.google.protobuf.Duration.newBuilder().setSeconds(seconds).build();
    }

    @Test
    void grpcClientOnTheRemotingPortIsToldWhereToGo() throws Exception {
        try (Socket s = new Socket("127.0.0.1", broker.port())) {
            s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            s.setSoTimeout(10_000);
            assertEquals(-1, s.getInputStream().read(), "the connection is closed");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.output().contains("an HTTP/2 (gRPC) client connected to"
            + " the remoting port: RocketMQ 5.x SDK clients connect to the broker's gRPC port (grpcServerPort)"));
    }

    @Test
    void grpcCallsAreCountedByRpcAndStatusCode() throws Exception {
        withStub(null, stub -> stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(topic("ProtoFifo")).build()));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            PrometheusText metrics = PrometheusText.scrape(broker.metricsPort());
            return !metrics.samples("basalt_grpc_responses_total",
                    Map.of("code", "CLIENT_ID_REQUIRED", "protocol", "grpc", "rpc", "QueryRoute")).isEmpty()
                && !metrics.samples("basalt_grpc_requests_total", Map.of("rpc", "QueryRoute")).isEmpty();
        });
    }

    /** POP requests parked waiting for messages, from the broker's metrics. */
    private static double parkedPops() throws Exception {
        return PrometheusText.scrape(broker.metricsPort()).value("basalt_pop_parked_requests", Map.of()).orElse(-1);
    }

    @Test
    void pushAndSimpleConsumersStartAndAnInvisibleDurationUnderTenSecondsIsRefused() throws Exception {
        org.apache.rocketmq.client.apis.ClientServiceProvider provider =
            org.apache.rocketmq.client.apis.ClientServiceProvider.loadService();
        org.apache.rocketmq.client.apis.ClientConfiguration config = org.apache.rocketmq.client.apis.ClientConfiguration
            .newBuilder().setEndpoints(broker.grpcAddress()).setRequestTimeout(Duration.ofSeconds(10)).build();
        var filter = new org.apache.rocketmq.client.apis.consumer.FilterExpression("*");
        try (var push = provider.newPushConsumerBuilder().setClientConfiguration(config).setConsumerGroup("proto-push")
                .setSubscriptionExpressions(Map.of("ProtoNormal", filter))
                .setMessageListener(view -> org.apache.rocketmq.client.apis.consumer.ConsumeResult.SUCCESS).build();
             var simple = provider.newSimpleConsumerBuilder().setClientConfiguration(config).setConsumerGroup("proto-simple")
                .setSubscriptionExpressions(Map.of("ProtoNormal", filter)).setAwaitDuration(Duration.ofSeconds(5)).build()) {
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> simple.receive(1, Duration.ofSeconds(5)));
            String causes = GrpcProducerTest.causes(e);
            assertTrue(causes.contains("40011") && causes.contains("invisible_duration must be between"), causes);
        }
    }

    @Test
    void remotingClientOnTheGrpcPortIsToldWhereToGo() throws Exception {
        try (Socket s = new Socket("127.0.0.1", broker.grpcPort())) {
            OutputStream out = s.getOutputStream();
            // a RocketMQ remoting frame: length, header length, JSON header
            byte[] header = "{\"code\":105,\"flag\":0,\"language\":\"JAVA\",\"opaque\":1,\"version\":453}".getBytes();
            out.write(ByteBuffer.allocate(8 + header.length).putInt(4 + header.length).putInt(header.length).put(header)
                .array());
            out.flush();
            InputStream in = s.getInputStream();
            s.setSoTimeout(10_000);
            assertEquals(-1, in.read(), "the connection is closed");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.output()
            .contains("a RocketMQ remoting client connected to the gRPC port; remoting clients (4.x and the 5.x remoting"
                + " client, mqadmin) connect to listenPort " + broker.port()));
    }
}
