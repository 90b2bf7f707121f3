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
 */
public record NettyServerConfig(String bindAddress, int listenPort, int selectorThreads, int maxFrameLength,
    int channelMaxIdleSeconds, long shutdownDrainTimeoutMs, boolean useEpoll) {

    public static final int DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

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
    }

    /** RocketMQ's defaults: all addresses, 3 selector threads, 16 MiB frames, 120 s idle. */
    public static NettyServerConfig defaults(int listenPort) {
        return new NettyServerConfig("0.0.0.0", listenPort, 3, DEFAULT_MAX_FRAME_LENGTH, 120, 10_000, true);
    }
}
