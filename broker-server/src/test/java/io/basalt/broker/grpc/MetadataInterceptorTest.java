package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MetadataInterceptorTest {
    /** Answers QueryRoute with the client id it was given. */
    static final class Echo extends MessagingServiceGrpc.MessagingServiceImplBase {
        final AtomicReference<ClientMetadata> seen = new AtomicReference<>();

        @Override
        public void queryRoute(QueryRouteRequest request, StreamObserver<QueryRouteResponse> out) {
            seen.set(ClientMetadata.current());
            out.onNext(QueryRouteResponse.newBuilder().setStatus(GrpcCodes.OK).build());
            out.onCompleted();
        }
    }

    private static QueryRouteResponse call(boolean aclOn, Echo service, GrpcCounters counters) throws Exception {
        String name = "interceptor-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).directExecutor()
            .addService(ServerInterceptors.intercept(service, new MetadataInterceptor(() -> aclOn, counters))).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            Metadata headers = new Metadata();
            headers.put(ClientMetadata.CLIENT_ID, "host@1@0@abc");
            headers.put(ClientMetadata.LANGUAGE, "java");
            headers.put(ClientMetadata.CLIENT_VERSION, "5.0.7");
            return MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .queryRoute(QueryRouteRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theClientsMetadataReachesTheHandler() throws Exception {
        Echo echo = new Echo();
        GrpcCounters counters = new GrpcCounters();
        assertEquals(Code.OK, call(false, echo, counters).getStatus().getCode());
        assertEquals("host@1@0@abc", echo.seen.get().clientId());
        assertEquals("JAVA", echo.seen.get().languageName());
        assertEquals("5.0.7", echo.seen.get().version());
        assertEquals(1L, counters.calls().get("QueryRoute"));
    }

    @Test
    void withAclOnEveryCallIsRefusedNamingTheGap() {
        Echo echo = new Echo();
        GrpcCounters counters = new GrpcCounters();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call(true, echo, counters));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("does not check the signatures of gRPC"),
            e.getStatus().getDescription());
        assertEquals(null, echo.seen.get(), "the handler never ran");
        assertEquals(1L, counters.results().get("QueryRoute/acl"));
    }

    @Test
    void pastTheFlowLimitCallsAreAnsweredTooManyRequests() throws Exception {
        GrpcCounters counters = new GrpcCounters();
        BrokerMessagingService overloaded = new BrokerMessagingService(null, null, null, null, null, null, counters, () -> true);
        String name = "flow-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).directExecutor()
            .addService(ServerInterceptors.intercept(overloaded, new MetadataInterceptor(() -> false, counters)))
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
