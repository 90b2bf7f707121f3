package io.basalt.broker.grpc;

import io.basalt.broker.auth.AccessControl;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.config.HostPort;
import io.basalt.broker.pop.PopService;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.broker.processor.SendMessageProcessor;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.tls.TlsMode;
import io.basalt.remoting.tls.TlsSettings;
import io.basalt.store.MessageStore;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's gRPC endpoint for the RocketMQ 5.x SDKs, on {@code grpcServerPort}: started and stopped with the
 * broker, on threads of its own ({@code GrpcBoss}, {@code GrpcWorker_n}, {@code GrpcThread_n}).
 */
public final class GrpcServer {
    private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);
    /** RocketMQ's proxy {@code grpcMaxInboundMessageSize}. */
    static final int MAX_INBOUND_MESSAGE_SIZE = 130 * 1024 * 1024;
    /** Requests waiting for an executor thread beyond which calls are answered TOO_MANY_REQUESTS. */
    static final int FLOW_LIMIT = 8_000;
    /** RocketMQ's proxy {@code grpcClientIdleTimeMills}. */
    static final long CLIENT_IDLE_TIMEOUT_MS = 120_000;

    /** What the endpoint needs of the broker. */
    public record Wiring(String brokerName, long brokerId, String brokerIP1, String bindAddress, int port,
                         Optional<HostPort> advertisedAddress, int remotingPort,
                         Function<String, TopicConfig> topics, IntUnaryOperator routePerm,
                         Function<String, Optional<SubscriptionGroupConfig>> groups, ClientManager clients,
                         MessageStore store, SendMessageProcessor sendProcessor, RequestProcessor endTransactionProcessor,
                         int maxMessageSize, TlsSettings tls, AccessControl accessControl, PopService pop,
                         RequestProcessor sendBackProcessor, long autoRenewInvisibleMs, Delivered delivered) { }

    /** Told of messages handed to a gRPC consumer (RocketMQ's messages-out traffic, as for remoting pulls). */
    @FunctionalInterface
    public interface Delivered {
        void messagesOut(String topic, String group, int messages, long bytes);
    }

    private final Wiring wiring;
    private final GrpcCounters counters = new GrpcCounters();
    private final GrpcClients clients;
    private final BrokerMessagingService service;
    private final AutoRenewals renewals;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private volatile ThreadPoolExecutor executor;
    private Server server;

    public GrpcServer(Wiring wiring) {
        this.wiring = wiring;
        TransactionOffsets transactions = new TransactionOffsets(wiring.store());
        this.clients = new GrpcClients(wiring.clients(), transactions, wiring.store()::lookMessageByOffset,
            wiring.store()::viewMessageById);
        this.renewals = new AutoRenewals(wiring.pop(), System::currentTimeMillis);
        clients.onDeparture(renewals::clientGone);
        clients.recordGroupsWith(wiring.pop()::recordConsumerGroup);
        this.service = new BrokerMessagingService(
            new RouteAnswers(wiring.brokerName(), wiring.brokerId(), this::advertised, wiring.topics(),
                wiring.routePerm(), group -> wiring.groups().apply(group).map(SubscriptionGroupConfig::consumeMessageOrderly)
                .orElse(false)),
            clients, new SettingsReplies(wiring.maxMessageSize(), wiring.groups()),
            new GrpcSends(wiring.topics(), wiring.routePerm(), wiring.maxMessageSize(), wiring.sendProcessor(), transactions),
            new GrpcTransactions(transactions, wiring.endTransactionProcessor()),
            new GrpcConsumption(wiring.pop(), wiring.groups(), wiring.sendBackProcessor(),
                wiring.store()::lookMessageByOffset, System::currentTimeMillis,
                wiring.autoRenewInvisibleMs(), renewals, counters, wiring.delivered()), counters, this::overloaded);
    }

    public GrpcCounters counters() {
        return counters;
    }

    /**
     * Binds the port and starts serving.
     *
     * @throws IOException the port is taken (the message names grpcServerPort) or the TLS certificate does not load
     */
    public synchronized void start() throws IOException {
        TlsMode mode = wiring.tls().serverMode();
        SslContext tls = null;
        if (mode != TlsMode.DISABLED) {
            TlsSettings.ServerKeyMaterial keys = wiring.tls().serverKeyMaterial();
            tls = GrpcSslContexts.forServer(keys.certificate(), keys.key(), keys.keyPassword()).build();
        }
        // grpc-netty-shaded carries its own native epoll (as the remoting server, epoll where the platform has it):
        // fewer system calls and wake-ups per call than NIO's selector
        boolean epoll = Epoll.isAvailable();
        int workerThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        boss = epoll ? new EpollEventLoopGroup(1, DaemonThreads.named("GrpcBoss"))
            : new NioEventLoopGroup(1, DaemonThreads.named("GrpcBoss"));
        workers = epoll ? new EpollEventLoopGroup(workerThreads, DaemonThreads.numbered("GrpcWorker_"))
            : new NioEventLoopGroup(workerThreads, DaemonThreads.numbered("GrpcWorker_"));
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        executor = new ThreadPoolExecutor(4, 16, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(10_000),
            DaemonThreads.numbered("GrpcThread_"));
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(wiring.bindAddress(), wiring.port()))
            .channelType(channelType).bossEventLoopGroup(boss).workerEventLoopGroup(workers)
            .executor(executor).protocolNegotiator(new TlsSniffingNegotiator(mode, tls,
                "listenPort " + wiring.remotingPort()))
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_SIZE)
            .maxConnectionIdle(CLIENT_IDLE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .addService(ServerInterceptors.intercept(service, new MetadataInterceptor(wiring.accessControl(),
                new CallNeeds(clientId -> clients.session(clientId).map(GrpcClients.Session::settings)), counters)));
        try {
            server = builder.build().start();
        } catch (IOException e) {
            stopThreads();
            if (addressInUse(e)) {
                throw new IOException("the gRPC port " + wiring.port() + " (grpcServerPort) on " + wiring.bindAddress()
                    + " is in use: give each broker of a host its own grpcServerPort (0 picks a free one, -1 turns"
                    + " the gRPC endpoint off)", e);
            }
            throw e;
        }
        renewals.start();
        log.info("gRPC endpoint for RocketMQ 5.x SDKs listening on port {} (TLS {}: {}), advertised as {}, {} transport",
            port(), mode.name().toLowerCase(java.util.Locale.ROOT), mode == TlsMode.DISABLED ? "plaintext only"
                : mode == TlsMode.ENFORCING ? "TLS only" : "TLS and plaintext on the same port", advertised(),
            epoll ? "epoll" : "NIO");
    }

    /**
     * A taken port: NIO says so with a {@link BindException}, native epoll with an IOException whose message is the
     * errno's text (EADDRINUSE), somewhere in the cause chain.
     */
    static boolean addressInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    /** The bound port (useful when configured with 0). */
    public synchronized int port() {
        return server == null ? -1 : server.getPort();
    }

    private boolean overloaded() {
        ThreadPoolExecutor e = executor;
        return e != null && e.getQueue().size() >= FLOW_LIMIT;
    }

    /** The host:port gRPC routes give for this broker. */
    HostPort advertised() {
        return wiring.advertisedAddress().orElseGet(() -> new HostPort(wiring.brokerIP1(), port()));
    }

    /** Stops accepting, ends the clients' Telemetry streams, lets calls in flight finish (up to 3 s), stops the threads. */
    public synchronized void shutdown() {
        if (server == null) {
            return;
        }
        server.shutdown();
        // the Telemetry streams stay open as long as their clients run: end them, or the server waits for them
        clients.closeAll();
        try {
            if (!server.awaitTermination(3, TimeUnit.SECONDS)) {
                server.shutdownNow();
                server.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.shutdownNow();
        }
        server = null;
        renewals.shutdown();
        stopThreads();
    }

    private void stopThreads() {
        if (executor != null) {
            executor.shutdownNow();
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
