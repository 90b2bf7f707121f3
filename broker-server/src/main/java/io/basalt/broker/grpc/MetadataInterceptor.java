package io.basalt.broker.grpc;

import io.basalt.broker.auth.AccessControl;
import io.basalt.broker.auth.GrpcSignature;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Reads the client's metadata into the call's context, counts the call, and, while the broker's ACL is on, lets a
 * request message reach its handler only when {@link AccessControl} accepts it: the 5.x SDKs' {@code authorization}
 * signature ({@link GrpcSignature}) checked against the account or user of its access key, and the topics and groups
 * of the message ({@link CallNeeds}) against its permissions, white addresses as for remoting. A refusal is a gRPC
 * status, as RocketMQ answers ACL rejections: UNAUTHENTICATED for a missing, unknown, malformed or wrong credential,
 * PERMISSION_DENIED for a resource not allowed; it is counted under the reason {@code acl}.
 *
 * <p>The check is made on every request message (Telemetry: on every command, so a permission taken away stops a
 * client's next settings sync), as RocketMQ's proxy makes it, since the resources are in the message, not the headers.
 */
final class MetadataInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> DATE_TIME = Metadata.Key.of(GrpcSignature.DATE_TIME,
        Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> SESSION_TOKEN = Metadata.Key.of("x-mq-session-token",
        Metadata.ASCII_STRING_MARSHALLER);
    static final String NO_STS = "the call carries a session token (x-mq-session-token), and Basalt has no STS to"
        + " check one: use a long-term access key and secret";

    private final AccessControl access;
    private final CallNeeds needs;
    private final GrpcCounters counters;

    MetadataInterceptor(AccessControl access, CallNeeds needs, GrpcCounters counters) {
        this.access = access;
        this.needs = needs;
        this.counters = counters;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
        String rpc = call.getMethodDescriptor().getBareMethodName();
        counters.called(rpc);
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        ClientMetadata metadata = ClientMetadata.of(headers, remote);
        Context context = Context.current().withValue(ClientMetadata.CURRENT, metadata);
        if (!access.enabled()) {
            return Contexts.interceptCall(context, call, headers, next);
        }
        String accessKey = null;
        Predicate<String> signedWith = secret -> false;
        String authorization = headers.get(ClientMetadata.AUTHORIZATION);
        if (headers.get(SESSION_TOKEN) != null) {
            return refused(call, rpc, access.refuseUnreadableCredentials(rpc, remote, NO_STS));
        }
        if (authorization != null) {
            GrpcSignature.Authorization parsed;
            try {
                parsed = GrpcSignature.parse(authorization);
            } catch (GrpcSignature.Malformed e) {
                return refused(call, rpc, access.refuseUnreadableCredentials(rpc, remote, e.getMessage()));
            }
            String dateTime = headers.get(DATE_TIME);
            if (dateTime == null || dateTime.isEmpty()) {
                return refused(call, rpc, access.refuseUnreadableCredentials(rpc, remote, "the call of accessKey "
                    + parsed.accessKey() + " is signed but has no " + GrpcSignature.DATE_TIME + " header, the signed"
                    + " content"));
            }
            accessKey = parsed.accessKey();
            signedWith = secret -> GrpcSignature.verify(secret, dateTime, parsed.signature());
        }
        OnceClosedCall<Q, R> guarded = new OnceClosedCall<>(call);
        return new CheckedListener<>(Contexts.interceptCall(context, guarded, headers, next), guarded, rpc, accessKey,
            signedWith, metadata);
    }

    private <Q, R> ServerCall.Listener<Q> refused(ServerCall<Q, R> call, String rpc, AccessControl.CallRefusal refusal) {
        counters.refused(rpc, "acl");
        call.close(status(refusal), new Metadata());
        return new ServerCall.Listener<>() { };
    }

    private static Status status(AccessControl.CallRefusal refusal) {
        return (refusal.unauthenticated() ? Status.UNAUTHENTICATED : Status.PERMISSION_DENIED)
            .withDescription(refusal.message());
    }

    /** Passes a request message on only when the ACL accepts it; after a refusal, passes nothing more on. */
    private final class CheckedListener<Q, R> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final OnceClosedCall<Q, R> call;
        private final String rpc;
        private final String accessKey;
        private final Predicate<String> signedWith;
        private final ClientMetadata metadata;
        private boolean refused;

        CheckedListener(ServerCall.Listener<Q> delegate, OnceClosedCall<Q, R> call, String rpc, String accessKey,
                        Predicate<String> signedWith, ClientMetadata metadata) {
            super(delegate);
            this.call = call;
            this.rpc = rpc;
            this.accessKey = accessKey;
            this.signedWith = signedWith;
            this.metadata = metadata;
        }

        @Override
        public void onMessage(Q message) {
            if (refused) {
                return;
            }
            Optional<AccessControl.CallRefusal> refusal = access.refuseCall(rpc, accessKey, signedWith,
                needs.of(message, metadata.clientId()), metadata.remoteAddress());
            if (refusal.isEmpty()) {
                super.onMessage(message);
                return;
            }
            refused = true;
            counters.refused(rpc, "acl");
            call.close(status(refusal.get()), new Metadata());
            if (!call.getMethodDescriptor().getType().clientSendsOneMessage()) {
                // a Telemetry stream: its handler cleans up (detaches the client's stream) as for a cancelled one
                super.onCancel();
            }
        }

        @Override
        public void onHalfClose() {
            if (!refused) {
                super.onHalfClose();
            }
        }
    }

    /**
     * The call as its handler sees it: once closed (by a refusal), later answers of the handler are dropped instead of
     * failing with "call already closed".
     */
    private static final class OnceClosedCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        private final AtomicBoolean closed = new AtomicBoolean();

        OnceClosedCall(ServerCall<Q, R> delegate) {
            super(delegate);
        }

        @Override
        public synchronized void sendHeaders(Metadata headers) {
            if (!closed.get()) {
                super.sendHeaders(headers);
            }
        }

        @Override
        public synchronized void sendMessage(R message) {
            if (!closed.get()) {
                super.sendMessage(message);
            }
        }

        @Override
        public synchronized void close(Status status, Metadata trailers) {
            if (closed.compareAndSet(false, true)) {
                super.close(status, trailers);
            }
        }
    }
}
