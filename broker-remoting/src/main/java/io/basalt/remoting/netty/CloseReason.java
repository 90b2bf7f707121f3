package io.basalt.remoting.netty;

/** Why the server closed a connection, counted per reason by {@link NettyRemotingServer#closedConnections}. */
public enum CloseReason {
    /** The peer sent bytes that are not a RocketMQ frame (bad length, header, serialization type). */
    MALFORMED_FRAME,
    /** Holding the peer's unfinished frame would have passed the server's partial-frame budget. */
    PARTIAL_FRAME_BUDGET,
    /** The peer began a frame and did not finish it within the frame timeout (stalled or trickling). */
    FRAME_TIMEOUT,
    /** The peer stopped reading its responses and they stayed above the high water mark too long. */
    UNWRITABLE,
    /** The connection was silent longer than the idle limit. */
    IDLE,
    /** A TLS handshake on a port with TLS disabled, or plaintext on a port that enforces TLS. */
    TLS_REFUSED;

    /** The metric label: lower case. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
