package io.basalt.broker.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.auth.AccessControl;
import io.basalt.broker.auth.AuthCounters;
import io.basalt.broker.auth.SdkSignatures;
import io.basalt.broker.auth.PlainAclFiles;
import io.basalt.broker.config.BrokerConfiguration;
import io.grpc.Attributes;
import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interceptor over an in-process server: the client's metadata reaches the handlers, and with ACL 1.0 on, calls
 * signed as rocketmq-client-java 5.0.7 signs them ({@code GrpcSignatureTest.sdkHeader}) pass or are refused by the
 * accounts of a {@code plain_acl.yml}, from the address a test gives the call.
 */
class MetadataInterceptorTest {
    private static final String ACL = """
        globalWhiteRemoteAddresses:
          - 10.10.103.*
        accounts:
          - accessKey: orderProducer
            secretKey: s3cretOrders
            defaultTopicPerm: DENY
            defaultGroupPerm: SUB
            topicPerms:
              - orders=PUB
          - accessKey: lanClient
            secretKey: lanSecret99
            whiteRemoteAddress: 192.168.1.*
            defaultTopicPerm: DENY
        """;
    private static final String DATE_TIME = "20261206T190102Z";

    @TempDir
    Path dir;

    /** Answers QueryRoute and SendMessage OK, remembering the client metadata it was given. */
    static final class Echo extends MessagingServiceGrpc.MessagingServiceImplBase {
        final AtomicReference<ClientMetadata> seen = new AtomicReference<>();

        @Override
        public void queryRoute(QueryRouteRequest request, StreamObserver<QueryRouteResponse> out) {
            seen.set(ClientMetadata.current());
            out.onNext(QueryRouteResponse.newBuilder().setStatus(GrpcCodes.OK).build());
            out.onCompleted();
        }

        @Override
        public void sendMessage(SendMessageRequest request, StreamObserver<SendMessageResponse> out) {
            seen.set(ClientMetadata.current());
            out.onNext(SendMessageResponse.newBuilder().setStatus(GrpcCodes.OK).build());
            out.onCompleted();
        }
    }

    /** Gives every call the remote address {@code address}, as the transport would. */
    private static ServerInterceptor from(InetSocketAddress address) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                ServerCallHandler<Q, R> next) {
                Attributes attributes = call.getAttributes().toBuilder().set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, address)
                    .build();
                return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    @Override
                    public Attributes getAttributes() {
                        return attributes;
                    }
                }, headers);
            }
        };
    }

    private AccessControl aclOn(AuthCounters authCounters) throws Exception {
        Path file = dir.resolve("conf/plain_acl.yml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, ACL);
        PlainAclFiles files = PlainAclFiles.load(file, dir.resolve("conf/acl"), System::currentTimeMillis);
        return AccessControl.open(BrokerConfiguration.of(Map.of("aclEnable", "true")).security(), files,
            dir.resolve("config"), authCounters, System::currentTimeMillis);
    }

    private AccessControl aclOff() throws Exception {
        return AccessControl.open(BrokerConfiguration.of(Map.of()).security(), null, dir.resolve("config"),
            new AuthCounters(), System::currentTimeMillis);
    }

    private static Metadata headers(String authorization) {
        Metadata headers = new Metadata();
        headers.put(ClientMetadata.CLIENT_ID, "host@1@0@abc");
        headers.put(ClientMetadata.LANGUAGE, "java");
        headers.put(ClientMetadata.CLIENT_VERSION, "5.0.7");
        headers.put(MetadataInterceptor.DATE_TIME, DATE_TIME);
        if (authorization != null) {
            headers.put(ClientMetadata.AUTHORIZATION, authorization);
        }
        return headers;
    }

    private static Metadata signed(String accessKey, String secret) throws Exception {
        return headers(SdkSignatures.header(accessKey, secret, DATE_TIME));
    }

    /** Runs {@code call} on a stub of a server with {@code access}, from {@code address}. */
    private static <T> T call(AccessControl access, Echo service, GrpcCounters counters, InetSocketAddress address,
                              Metadata headers, Function<MessagingServiceGrpc.MessagingServiceBlockingStub, T> call)
        throws Exception {
        String name = "interceptor-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).directExecutor()
            .addService(ServerInterceptors.intercept(service, new MetadataInterceptor(access,
                new CallNeeds(id -> Optional.empty()), counters), from(address))).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            return call.apply(MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers)));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static QueryRouteResponse route(MessagingServiceGrpc.MessagingServiceBlockingStub stub) {
        return stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(Resource.newBuilder().setName("orders")).build());
    }

    private static Function<MessagingServiceGrpc.MessagingServiceBlockingStub, SendMessageResponse> send(String topic) {
        return stub -> stub.sendMessage(SendMessageRequest.newBuilder().addMessages(Message.newBuilder()
            .setTopic(Resource.newBuilder().setName(topic))).build());
    }

    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.1.2.3", 40000);

    @Test
    void theClientsMetadataReachesTheHandler() throws Exception {
        Echo echo = new Echo();
        GrpcCounters counters = new GrpcCounters();
        assertEquals(Code.OK, call(aclOff(), echo, counters, CLIENT, headers(null), MetadataInterceptorTest::route)
            .getStatus().getCode());
        assertEquals("host@1@0@abc", echo.seen.get().clientId());
        assertEquals("JAVA", echo.seen.get().languageName());
        assertEquals("5.0.7", echo.seen.get().version());
        assertEquals(1L, counters.calls().get("QueryRoute"));
    }

    @Test
    void aValidSdkSignatureWithPermissionPasses() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        AccessControl access = aclOn(auth);
        GrpcCounters counters = new GrpcCounters();
        Metadata headers = signed("orderProducer", "s3cretOrders");
        assertEquals(Code.OK, call(access, echo, counters, CLIENT, headers, send("orders")).getStatus().getCode());
        assertEquals(Code.OK, call(access, echo, counters, CLIENT, headers, MetadataInterceptorTest::route)
            .getStatus().getCode(), "a route of a topic it may publish to");
        assertEquals("host@1@0@abc", echo.seen.get().clientId());
        assertEquals(2L, auth.allowed());
        assertEquals(null, counters.results().get("SendMessage/acl"));
    }

    @Test
    void aWrongSecretIsUnauthenticated() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(auth);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, signed("orderProducer", "notTheSecret"), send("orders")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("orderProducer")
            && e.getStatus().getDescription().contains("Check signature failed"), e.getStatus().getDescription());
        assertNull(echo.seen.get(), "the handler never ran");
        assertEquals(1L, counters.results().get("SendMessage/acl"));
        assertEquals(1L, auth.denied().get("v1/bad_signature"));
    }

    @Test
    void anUnknownKeyIsUnauthenticated() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(auth);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, signed("nobodyKnowsMe", "s3cretOrders"), send("orders")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("No acl config for nobodyKnowsMe"),
            e.getStatus().getDescription());
        assertNull(echo.seen.get());
        assertEquals(1L, auth.denied().get("v1/unknown_user"));
    }

    @Test
    void noAuthorizationHeaderIsUnauthenticated() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(auth);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, headers(null), MetadataInterceptorTest::route));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("No accessKey is configured"), e.getStatus().getDescription());
        assertNull(echo.seen.get());
        assertEquals(1L, counters.results().get("QueryRoute/acl"));
        assertEquals(1L, auth.denied().get("v1/no_credentials"));
    }

    @Test
    void aTopicWithoutPubIsPermissionDeniedNamingKeyAndTopic() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(auth);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, signed("orderProducer", "s3cretOrders"), send("payments")));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("orderProducer")
            && e.getStatus().getDescription().contains("topic:payments"), e.getStatus().getDescription());
        assertNull(echo.seen.get());
        assertEquals(1L, counters.results().get("SendMessage/acl"));
        assertEquals(1L, auth.denied().get("v1/no_permission"));
    }

    @Test
    void whiteAddressesLetCallsInAsForRemoting() throws Exception {
        Echo echo = new Echo();
        AuthCounters auth = new AuthCounters();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(auth);
        // the account's white address: no signature, no permission check (RocketMQ's rule)
        assertEquals(Code.OK, call(access, echo, counters, new InetSocketAddress("192.168.1.7", 5000),
            signed("lanClient", "notTheSecret"), send("payments")).getStatus().getCode());
        // a global white address: no credentials at all
        assertEquals(Code.OK, call(access, echo, counters, new InetSocketAddress("10.10.103.4", 5000),
            headers(null), send("payments")).getStatus().getCode());
        assertEquals(2L, auth.whiteAddress());
        // the same account from elsewhere must sign
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, signed("lanClient", "notTheSecret"), send("payments")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
    }

    @Test
    void aSessionTokenAMalformedHeaderOrNoDateIsUnauthenticatedSayingWhy() throws Exception {
        Echo echo = new Echo();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(new AuthCounters());
        Metadata sts = signed("orderProducer", "s3cretOrders");
        sts.put(MetadataInterceptor.SESSION_TOKEN, "token");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters,
            CLIENT, sts, send("orders")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("no STS"), e.getStatus().getDescription());
        e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters, CLIENT,
            headers("Basic dXNlcjpwYXNz"), send("orders")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("MQv2-HMAC-SHA1"), e.getStatus().getDescription());
        Metadata undated = signed("orderProducer", "s3cretOrders");
        undated.removeAll(MetadataInterceptor.DATE_TIME);
        e = assertThrows(StatusRuntimeException.class, () -> call(access, echo, counters, CLIENT, undated,
            send("orders")));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("no x-mq-date-time"), e.getStatus().getDescription());
        assertNull(echo.seen.get());
        assertEquals(3L, counters.results().get("SendMessage/acl"));
    }

    /** Telemetry that records what reached the handler's stream. */
    static final class TelemetryRecorder extends MessagingServiceGrpc.MessagingServiceImplBase {
        final List<TelemetryCommand> received = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> ended = new AtomicReference<>();

        @Override
        public StreamObserver<TelemetryCommand> telemetry(StreamObserver<TelemetryCommand> out) {
            return new StreamObserver<>() {
                @Override
                public void onNext(TelemetryCommand command) {
                    received.add(command);
                    out.onNext(TelemetryCommand.newBuilder().setStatus(GrpcCodes.OK).build());
                }

                @Override
                public void onError(Throwable t) {
                    ended.set(t);
                }

                @Override
                public void onCompleted() {
                    out.onCompleted();
                }
            };
        }
    }

    @Test
    void telemetrySettingsPublishingToATopicWithoutPubEndTheStreamPermissionDenied() throws Exception {
        TelemetryRecorder service = new TelemetryRecorder();
        GrpcCounters counters = new GrpcCounters();
        AccessControl access = aclOn(new AuthCounters());
        String name = "telemetry-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).directExecutor()
            .addService(ServerInterceptors.intercept(service, new MetadataInterceptor(access,
                new CallNeeds(id -> Optional.empty()), counters), from(CLIENT))).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            AtomicReference<Throwable> clientSaw = new AtomicReference<>();
            List<TelemetryCommand> replies = new CopyOnWriteArrayList<>();
            StreamObserver<TelemetryCommand> stream = MessagingServiceGrpc.newStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(signed("orderProducer", "s3cretOrders")))
                .telemetry(new StreamObserver<>() {
                    @Override
                    public void onNext(TelemetryCommand value) {
                        replies.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        clientSaw.set(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
            stream.onNext(TelemetryCommand.newBuilder().setSettings(Settings.newBuilder().setClientType(ClientType.PRODUCER)
                .setPublishing(Publishing.newBuilder().addTopics(Resource.newBuilder().setName("orders")))).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> replies.size() == 1);
            stream.onNext(TelemetryCommand.newBuilder().setSettings(Settings.newBuilder().setClientType(ClientType.PRODUCER)
                .setPublishing(Publishing.newBuilder().addTopics(Resource.newBuilder().setName("payments")))).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> clientSaw.get() != null);
            Status status = Status.fromThrowable(clientSaw.get());
            assertEquals(Status.Code.PERMISSION_DENIED, status.getCode());
            assertTrue(status.getDescription().contains("orderProducer") && status.getDescription().contains("payments"),
                status.getDescription());
            assertEquals(1, service.received.size(), "the refused settings never reached the handler");
            await().atMost(Duration.ofSeconds(10)).until(() -> service.ended.get() != null);
            assertEquals(1L, counters.results().get("Telemetry/acl"));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void pastTheFlowLimitCallsAreAnsweredTooManyRequests() throws Exception {
        GrpcCounters counters = new GrpcCounters();
        BrokerMessagingService overloaded = new BrokerMessagingService(null, null, null, null, null, null, counters, () -> true);
        String name = "flow-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).directExecutor()
            .addService(ServerInterceptors.intercept(overloaded, new MetadataInterceptor(aclOff(),
                new CallNeeds(id -> Optional.empty()), counters)))
            .build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            Metadata headers = new Metadata();
            headers.put(ClientMetadata.CLIENT_ID, "host@1@0@abc");
            QueryRouteResponse r = MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .queryRoute(QueryRouteRequest.getDefaultInstance());
            assertEquals(Code.TOO_MANY_REQUESTS, r.getStatus().getCode());
            assertEquals(1L, counters.results().get("QueryRoute/TOO_MANY_REQUESTS"));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aVersionNameBecomesTheRegistriesOrdinal() {
        assertTrue(ClientVersions.ordinalOf("5.0.7") > ClientVersions.ordinalOf("5.0.6"));
        assertEquals(0, ClientVersions.ordinalOf("not a version"));
        assertEquals(0, ClientVersions.ordinalOf(""));
    }
}
