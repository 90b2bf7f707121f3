package io.basalt.remoting.netty;

/**
 * {@link NettyServerConfig}s for tests, set by name instead of seven positional arguments. Starts
 * from a loopback server on a free port with one selector thread, 1 MiB frames, no idle close, a
 * 1 s shutdown drain, and epoll where available.
 */
final class TestServerConfig {
    private int listenPort;
    private int selectorThreads = 1;
    private int maxFrameLength = 1 << 20;
    private int channelMaxIdleSeconds;
    private long shutdownDrainTimeoutMs = 1_000;

    private TestServerConfig() {
    }

    static TestServerConfig loopback() {
        return new TestServerConfig();
    }

    TestServerConfig listenPort(int port) {
        this.listenPort = port;
        return this;
    }

    TestServerConfig selectorThreads(int threads) {
        this.selectorThreads = threads;
        return this;
    }

    TestServerConfig maxFrameLength(int bytes) {
        this.maxFrameLength = bytes;
        return this;
    }

    TestServerConfig channelMaxIdleSeconds(int seconds) {
        this.channelMaxIdleSeconds = seconds;
        return this;
    }

    TestServerConfig shutdownDrainTimeoutMs(long ms) {
        this.shutdownDrainTimeoutMs = ms;
        return this;
    }

    NettyServerConfig build() {
        return new NettyServerConfig("127.0.0.1", listenPort, selectorThreads, maxFrameLength, channelMaxIdleSeconds,
            shutdownDrainTimeoutMs, true);
    }
}
