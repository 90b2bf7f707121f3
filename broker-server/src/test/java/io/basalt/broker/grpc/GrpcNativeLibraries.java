package io.basalt.broker.grpc;

import io.basalt.common.test.LifetimeThreads;

/**
 * Loads the native libraries of gRPC's shaded Netty (BoringSSL, epoll) before the first test: Netty maps them from
 * deleted temporary files for the rest of the JVM, which would otherwise be blamed on whichever test first starts a
 * broker (its gRPC endpoint).
 */
public final class GrpcNativeLibraries implements LifetimeThreads {
    @Override
    public void start() {
        io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl.isAvailable();
        io.grpc.netty.shaded.io.netty.channel.epoll.Epoll.isAvailable();
    }
}
