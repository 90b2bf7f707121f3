package io.basalt.broker.grpc;

import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.function.BooleanSupplier;

/**
 * Reads the client's metadata into the call's context, counts the call, and refuses every call while the broker's
 * ACL is on: Basalt does not verify the 5.x clients' {@code authorization} signature yet, and a call it cannot check
 * must not get past the ACL (gRPC PERMISSION_DENIED naming the gap, as RocketMQ answers ACL rejections).
 */
final class MetadataInterceptor implements ServerInterceptor {
    static final String ACL_GAP = "this broker has ACL on (aclEnable / authenticationEnabled), and Basalt does not"
        + " check the signatures of gRPC (RocketMQ 5.x SDK) clients yet: use the remoting protocol with ACL, or turn"
        + " ACL off for gRPC clients";

    private final BooleanSupplier aclOn;
    private final GrpcCounters counters;

    MetadataInterceptor(BooleanSupplier aclOn, GrpcCounters counters) {
        this.aclOn = aclOn;
        this.counters = counters;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
        String rpc = call.getMethodDescriptor().getBareMethodName();
        counters.called(rpc);
        if (aclOn.getAsBoolean()) {
            counters.refused(rpc, "acl");
            call.close(Status.PERMISSION_DENIED.withDescription(ACL_GAP), new Metadata());
            return new ServerCall.Listener<>() { };
        }
        ClientMetadata metadata = ClientMetadata.of(headers, call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        return Contexts.interceptCall(io.grpc.Context.current().withValue(ClientMetadata.CURRENT, metadata), call,
            headers, next);
    }
}
