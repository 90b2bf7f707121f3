package io.basalt.remoting.processor;

import java.net.SocketAddress;

/**
 * Where a request came from: the connection's two ends and when its frame was decoded.
 * Immutable; any thread.
 */
public final class RequestContext {
    private final SocketAddress remoteAddress;
    private final SocketAddress localAddress;
    private final long receivedAtNanos;

    public RequestContext(SocketAddress remoteAddress, SocketAddress localAddress, long receivedAtNanos) {
        this.remoteAddress = remoteAddress;
        this.localAddress = localAddress;
        this.receivedAtNanos = receivedAtNanos;
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
