package io.basalt.remoting.netty;

/**
 * Settings of a {@link NettyRemotingServer}, validated once on construction.
 *
 * @param bindAddress address to listen on ("0.0.0.0" for all)
 * @param listenPort port to listen on; 0 picks a free one (read it back with {@code localPort()})
 * @param selectorThreads I/O threads (RocketMQ's {@code serverSelectorThreads})
 * @param maxFrameLength largest frame accepted, length word included (RocketMQ: 16 MiB)
 * @param channelMaxIdleSeconds a connection silent this long is closed; 0 disables
 * @param shutdownDrainTimeoutMs how long a shutdown waits for accepted requests to be answered
 * @param useEpoll use the native epoll transport when the platform has it (NIO otherwise)
 * @param partialFrameBudgetBytes bytes of unfinished frames all connections together may hold; the
 *     connection whose bytes would pass it is closed (one peer cannot make the server hold
 *     {@code connections × maxFrameLength})
 * @param frameCompleteTimeoutMs a frame begun must be complete within this time, else its sender (a
 *     stalled or trickling peer) is closed; 0 disables
 * @param writeBufferLowWaterMark pending response bytes below which a paused connection is read again
 *     (RocketMQ's {@code writeBufferLowWaterMark})
 * @param writeBufferHighWaterMark pending response bytes above which the server stops reading requests
 *     from that connection (RocketMQ's {@code writeBufferHighWaterMark})
 * @param unwritableCloseMs a connection whose responses stay above the high water mark this long (a
 *     peer that does not read) is closed; 0 disables
 */
public record NettyServerConfig(String bindAddress, int listenPort, int selectorThreads, int maxFrameLength,
    int channelMaxIdleSeconds, long shutdownDrainTimeoutMs, boolean useEpoll, long partialFrameBudgetBytes,
    long frameCompleteTimeoutMs, int writeBufferLowWaterMark, int writeBufferHighWaterMark, long unwritableCloseMs) {

    public static final int DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;
    /** Eight maximal frames in flight at once, whatever the number of connections. */
    public static final long DEFAULT_PARTIAL_FRAME_BUDGET_BYTES = 128L * 1024 * 1024;
    public static final long DEFAULT_FRAME_COMPLETE_TIMEOUT_MS = 15_000;
    /** Netty's own water marks, which RocketMQ keeps while its keys are 0. */
    public static final int DEFAULT_WRITE_BUFFER_LOW_WATER_MARK = 32 * 1024;
    public static final int DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK = 64 * 1024;
    public static final long DEFAULT_UNWRITABLE_CLOSE_MS = 30_000;

    /** The settings before the memory bounds, which take their defaults. */
    public NettyServerConfig(String bindAddress, int listenPort, int selectorThreads, int maxFrameLength,
        int channelMaxIdleSeconds, long shutdownDrainTimeoutMs, boolean useEpoll) {
        this(bindAddress, listenPort, selectorThreads, maxFrameLength, channelMaxIdleSeconds, shutdownDrainTimeoutMs,
            useEpoll, DEFAULT_PARTIAL_FRAME_BUDGET_BYTES, DEFAULT_FRAME_COMPLETE_TIMEOUT_MS,
            DEFAULT_WRITE_BUFFER_LOW_WATER_MARK, DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK, DEFAULT_UNWRITABLE_CLOSE_MS);
    }

    public NettyServerConfig {
        if (listenPort < 0 || listenPort > 65535) {
            throw new IllegalArgumentException("listenPort must be 0..65535: " + listenPort);
        }
        if (selectorThreads < 1) {
            throw new IllegalArgumentException("selectorThreads must be at least 1: " + selectorThreads);
        }
        if (maxFrameLength < 16) {
            throw new IllegalArgumentException("maxFrameLength must be at least 16: " + maxFrameLength);
        }
        if (channelMaxIdleSeconds < 0) {
            throw new IllegalArgumentException("channelMaxIdleSeconds must not be negative: " + channelMaxIdleSeconds);
        }
        if (shutdownDrainTimeoutMs < 0) {
            throw new IllegalArgumentException("shutdownDrainTimeoutMs must not be negative: " + shutdownDrainTimeoutMs);
        }
        if (partialFrameBudgetBytes < maxFrameLength) {
            throw new IllegalArgumentException("partialFrameBudgetBytes (" + partialFrameBudgetBytes
                + ") must hold at least one frame of maxFrameLength (" + maxFrameLength + ")");
        }
        if (frameCompleteTimeoutMs < 0 || unwritableCloseMs < 0) {
            throw new IllegalArgumentException("frameCompleteTimeoutMs (" + frameCompleteTimeoutMs
                + ") and unwritableCloseMs (" + unwritableCloseMs + ") must not be negative");
        }
        if (writeBufferLowWaterMark < 1 || writeBufferHighWaterMark < writeBufferLowWaterMark) {
            throw new IllegalArgumentException("write buffer water marks need 0 < low (" + writeBufferLowWaterMark
                + ") <= high (" + writeBufferHighWaterMark + ")");
        }
    }

    /** RocketMQ's defaults: all addresses, 3 selector threads, 16 MiB frames, 120 s idle. */
    public static NettyServerConfig defaults(int listenPort) {
        return new NettyServerConfig("0.0.0.0", listenPort, 3, DEFAULT_MAX_FRAME_LENGTH, 120, 10_000, true);
    }

    /** This configuration with other memory bounds. */
    public NettyServerConfig withBounds(long partialFrameBudgetBytes, long frameCompleteTimeoutMs,
        int writeBufferLowWaterMark, int writeBufferHighWaterMark, long unwritableCloseMs) {
        return new NettyServerConfig(bindAddress, listenPort, selectorThreads, maxFrameLength, channelMaxIdleSeconds,
            shutdownDrainTimeoutMs, useEpoll, partialFrameBudgetBytes, frameCompleteTimeoutMs, writeBufferLowWaterMark,
            writeBufferHighWaterMark, unwritableCloseMs);
    }
}
