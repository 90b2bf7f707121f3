package io.basalt.remoting.netty;

/**
 * Settings of a {@link NettyRemotingClient}, validated once on construction.
 *
 * @param workerThreads I/O threads shared by all connections
 * @param connectTimeoutMs longest wait for a TCP connect (also bounded by each call's timeout)
 * @param maxFrameLength largest frame accepted, length word included
 * @param channelMaxIdleSeconds a connection silent this long is closed; 0 disables
 * @param useEpoll use the native epoll transport when the platform has it (NIO otherwise)
 */
public record NettyClientConfig(int workerThreads, int connectTimeoutMs, int maxFrameLength, int channelMaxIdleSeconds,
    boolean useEpoll) {

    public NettyClientConfig {
        if (workerThreads < 1) {
            throw new IllegalArgumentException("workerThreads must be at least 1: " + workerThreads);
        }
        if (connectTimeoutMs < 1) {
            throw new IllegalArgumentException("connectTimeoutMs must be positive: " + connectTimeoutMs);
        }
        if (maxFrameLength < 16) {
            throw new IllegalArgumentException("maxFrameLength must be at least 16: " + maxFrameLength);
        }
        if (channelMaxIdleSeconds < 0) {
            throw new IllegalArgumentException("channelMaxIdleSeconds must not be negative: " + channelMaxIdleSeconds);
        }
    }

    /** RocketMQ's client defaults: 3 s connect timeout, 16 MiB frames, 120 s idle. */
    public static NettyClientConfig defaults() {
        return new NettyClientConfig(2, 3000, NettyServerConfig.DEFAULT_MAX_FRAME_LENGTH, 120, true);
    }
}
