package io.basalt.it;

import io.basalt.common.test.LifetimeThreads;
import org.apache.rocketmq.client.apis.ClientServiceProvider;

/**
 * Loads the native libraries of the RocketMQ 5.x gRPC SDK's shaded Netty (BoringSSL, epoll) before the first test:
 * Netty maps them from deleted temporary files and keeps them for the rest of the JVM, which would otherwise be
 * blamed on whichever test first starts a 5.x client. Modules that reuse broker-it's test classes without the SDK
 * on their class path (broker-tools) skip it.
 */
public final class GrpcClientNatives implements LifetimeThreads {
    private static final String SDK_CLASS = "org.apache.rocketmq.client.apis.ClientServiceProvider";

    @Override
    public void start() {
        if (sdkOnClassPath()) {
            Natives.load();
        }
    }

    private static boolean sdkOnClassPath() {
        try {
            Class.forName(SDK_CLASS, false, GrpcClientNatives.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Its own class, so the SDK's classes are resolved only when they are there. */
    private static final class Natives {
        static void load() {
            org.apache.rocketmq.shaded.io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl.isAvailable();
            org.apache.rocketmq.shaded.io.grpc.netty.shaded.io.netty.channel.epoll.Epoll.isAvailable();
            ClientServiceProvider.loadService();
        }
    }
}
