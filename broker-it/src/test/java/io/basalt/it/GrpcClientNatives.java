package io.basalt.it;

import io.basalt.common.test.LifetimeThreads;
import org.apache.rocketmq.client.apis.ClientServiceProvider;

/**
 * Loads the native libraries of the RocketMQ 5.x gRPC SDK's shaded Netty (BoringSSL, epoll) before the first test:
 * Netty maps them from deleted temporary files and keeps them for the rest of the JVM, which would otherwise be
 * blamed on whichever test first starts a 5.x client.
 */
public final class GrpcClientNatives implements LifetimeThreads {
    @Override
    public void start() {
        org.apache.rocketmq.shaded.io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl.isAvailable();
        org.apache.rocketmq.shaded.io.grpc.netty.shaded.io.netty.channel.epoll.Epoll.isAvailable();
        ClientServiceProvider.loadService();
    }
}
