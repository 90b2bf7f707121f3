package io.basalt.remoting.processor;

import io.basalt.remoting.protocol.RemotingCommand;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One accepted connection, as processors see it: a stable handle (one object per connection, usable
 * as a map key) through which the server can also call the peer, e.g. to ask a producer for a
 * transaction state or a consumer for its running info. Thread-safe.
 */
public interface RemotingConnection {
    SocketAddress remoteAddress();

    boolean isActive();

    /**
     * Whether a request written now goes out at once rather than queuing behind data the peer has not read yet
     * (Netty's {@code Channel.isWritable}). A handle that cannot tell says true.
     */
    default boolean isWritable() {
        return true;
    }

    /**
     * Sends a request to the peer. The future completes with its response, or fails with a
     * {@code RemotingTimeoutException}, {@code RemotingConnectException} (the connection closed) or
     * {@code RemotingSendRequestException} from {@code io.basalt.remoting.netty}.
     */
    CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs);

    /**
     * The protocol the peer speaks: {@code remoting} for RocketMQ's remoting clients, {@code grpc} for a 5.x SDK
     * client (whose requests from the broker are translated onto its Telemetry stream). Labels metrics and status rows,
     * and keeps gRPC clients out of the remoting rebalance.
     */
    default String protocol() {
        return "remoting";
    }

    /** Marks the request one-way and sends it; the future completes once it is written. */
    CompletableFuture<Void> invokeOneway(RemotingCommand request);

    void close();
}
