package io.basalt.remoting.processor;

import java.net.SocketAddress;

/**
 * Where a request came from: its connection, the connection's two ends and when its frame was
 * decoded. Immutable; any thread.
 */
public final class RequestContext {
    private final RemotingConnection connection;
    private final SocketAddress remoteAddress;
    private final SocketAddress localAddress;
    private final long receivedAtNanos;

    public RequestContext(RemotingConnection connection, SocketAddress remoteAddress, SocketAddress localAddress,
        long receivedAtNanos) {
        this.connection = connection;
        this.remoteAddress = remoteAddress;
        this.localAddress = localAddress;
        this.receivedAtNanos = receivedAtNanos;
    }

    /** The connection the request arrived on. */
    public RemotingConnection connection() {
        return connection;
    }

    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    public SocketAddress localAddress() {
        return localAddress;
    }

    /** {@code System.nanoTime()} (or the dispatcher's clock) when the request was decoded. */
    public long receivedAtNanos() {
        return receivedAtNanos;
    }
}
