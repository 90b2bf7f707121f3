package io.basalt.broker.grpc;

import io.basalt.common.test.LifetimeThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts the JDK's {@code CompletableFutureDelayScheduler} before the first test: the daemon thread behind
 * {@code CompletableFuture.orTimeout} (which bounds the wait for a gRPC client's Telemetry reply) lives as long as the
 * JVM and would otherwise be blamed on whichever test first waits for a reply.
 */
public final class CompletableFutureDelayer implements LifetimeThreads {
    @Override
    public void start() {
        new CompletableFuture<Void>().orTimeout(1, TimeUnit.MILLISECONDS).exceptionally(e -> null).join();
    }
}
