package io.basalt.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The broker-process fixture for the test packages below {@code io.basalt.it}. */
public final class BrokerHandle implements AutoCloseable {
    private final BrokerProcess process;

    private BrokerHandle(BrokerProcess process) {
        this.process = process;
    }

    /** Starts a broker in its own JVM with a store in {@code dir}; {@code extra} adds or overrides broker.conf keys. */
    public static BrokerHandle start(Path dir, Map<String, String> extra) throws IOException {
        BrokerProcess process = BrokerProcess.create(Files.createDirectories(dir), extra);
        BrokerHandle handle = new BrokerHandle(process);
        try {
            process.start();
        } catch (RuntimeException | IOException e) {
            try {
                process.close();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
        return handle;
    }

    /** A free local port, for a NameServer or a second broker. */
    public static int freePort() throws IOException {
        return BrokerProcess.freePort();
    }

    /** {@code 127.0.0.1:<port>}: the broker's address, and its own NameServer. */
    public String address() {
        return process.address();
    }

    /** {@code 127.0.0.1:<grpcServerPort>}: the broker's gRPC endpoint for RocketMQ 5.x SDK clients. */
    public String grpcAddress() {
        return process.grpcAddress();
    }

    public String output() throws IOException {
        return process.output();
    }

    /** SIGTERM and wait for a clean exit; returns the exit status. */
    public int stopGracefully() throws InterruptedException {
        return process.stopGracefully();
    }

    /** Kills the broker if it still runs. */
    @Override
    public void close() {
        try {
            process.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
