package io.basalt.it;

import java.nio.file.Path;

import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;

/**
 * The real RocketMQ 5.2.0 NameServer, in the test's JVM, on a free port of 127.0.0.1, with its KV config and
 * properties under a test directory. A test that uses it must allow the thread {@code NettyServerScheduler_}
 * ({@link #LEFT_RUNNING}): the official {@code NettyRemotingServer.shutdown()} leaves it running.
 */
public final class RocketMqNameServer implements AutoCloseable {
    /** The thread the official NameServer's shutdown leaves running. */
    public static final String LEFT_RUNNING = "NettyServerScheduler_";

    private final NamesrvController controller;
    private final String address;

    private RocketMqNameServer(NamesrvController controller) {
        this.controller = controller;
        this.address = "127.0.0.1:" + controller.getRemotingServer().localListenPort();
    }

    /** Starts a NameServer keeping its files in {@code dir/namesrv}. */
    public static RocketMqNameServer start(Path dir) throws Exception {
        NamesrvConfig config = new NamesrvConfig();
        config.setKvConfigPath(dir.resolve("namesrv/kvConfig.json").toString());
        config.setConfigStorePath(dir.resolve("namesrv/namesrv.properties").toString());
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress("127.0.0.1");
        server.setListenPort(BrokerProcess.freePort());
        NamesrvController controller = new NamesrvController(config, server, new NettyClientConfig());
        if (!controller.initialize()) {
            controller.shutdown();
            throw new IllegalStateException("the RocketMQ NameServer did not initialise");
        }
        controller.start();
        return new RocketMqNameServer(controller);
    }

    /** {@code 127.0.0.1:port}, for {@code namesrvAddr}. */
    public String address() {
        return address;
    }

    @Override
    public void close() {
        controller.shutdown();
    }
}
