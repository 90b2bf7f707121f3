package io.basalt.ha.master;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.concurrent.DaemonThreads;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * The HA port's Netty event loops (one acceptor, {@code HAAcceptService}, and two connection loops,
 * {@code HAConnection_N}) and, once {@link #listen}ed, the HA port itself, kept across the master endpoints
 * ({@link HAService}) a broker runs in its life.
 *
 * <p>A controller-mode promotion is on the failover's critical path. Binding the port there cost 40–100 ms in a
 * broker that never ran a master endpoint (the first bind of a JVM loads and initialises the server-channel path),
 * and could fail outright if another process had taken the port meanwhile. A controller-mode broker therefore
 * binds {@code haListenPort} once at start, as RocketMQ's AutoSwitch brokers do: a connection that arrives while no
 * master endpoint is {@linkplain #attach attached} (this broker is a slave, or has no role yet) is closed at once,
 * and a promotion only attaches its endpoint. Classic mode binds per endpoint on the shared loops.
 *
 * <p>Owned by {@link io.basalt.ha.Replication}, or by a service made without one. Thread-safe.
 */
public final class HAListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HAListener.class);

    /** One counter across both groups and every endpoint, as RocketMQ numbers its HAConnection threads. */
    private final AtomicInteger threadIndex = new AtomicInteger();
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private volatile HAService attached;
    private boolean closed;
    /** TLS on the HA port (the remoting ports' mode and certificate); null: plaintext only. */
    private volatile io.basalt.remoting.tls.TlsMode tlsMode;
    private volatile io.netty.handler.ssl.SslContext tlsContext;

    synchronized EventLoopGroup boss() {
        create();
        return boss;
    }

    synchronized EventLoopGroup workers() {
        create();
        return workers;
    }

    private void create() {
        if (closed) {
            throw new IllegalStateException("the HA listener is closed");
        }
        if (boss == null) {
            boss = new MultiThreadIoEventLoopGroup(1, named("HAAcceptService"), NioIoHandler.newFactory());
            workers = new MultiThreadIoEventLoopGroup(2, named("HAConnection_"), NioIoHandler.newFactory());
        }
    }

    private ThreadFactory named(String prefix) {
        return DaemonThreads.factory(index -> prefix.endsWith("_") ? prefix + threadIndex.incrementAndGet() : prefix,
            FastThreadLocalThread::new);
    }

    /** A server bootstrap on these loops whose connections {@code initializer} sets up. */
    ServerBootstrap bootstrap(ChannelInitializer<SocketChannel> initializer) {
        return new ServerBootstrap().group(boss(), workers()).channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
            .childHandler(initializer);
    }

    /**
     * Binds {@code port} (0: any) for the rest of this listener's life; every connection goes to the endpoint
     * attached at the time, or is closed when none is. Idempotent.
     *
     * @throws IOException when the port cannot be bound
     */
    public synchronized void listen(int port) throws IOException {
        if (serverChannel != null) {
            return;
        }
        ServerBootstrap bootstrap = bootstrap(new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                HAService service = attached;
                if (service == null) {
                    LOG.info("HA connection from {} closed: this broker is not a master", ch.remoteAddress());
                    ch.close();
                    return;
                }
                service.initConnection(ch);
            }
        });
        try {
            serverChannel = bootstrap.bind(port).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            throw new IOException("the HA port " + port + " cannot be bound: " + e, e);
        }
        LOG.info("HA port {} bound; it serves slaves while this broker is master", localPort());
    }

    /**
     * TLS on the HA port, as on the remoting ports: a connection that starts a TLS handshake gets TLS (a Basalt slave
     * with {@code haTlsEnable}), any other is plaintext unless {@code mode} is enforcing (RocketMQ slaves speak
     * plaintext only). Set before the first connection.
     */
    public void setTls(io.basalt.remoting.tls.TlsMode mode, io.netty.handler.ssl.SslContext context) {
        this.tlsMode = mode;
        this.tlsContext = context;
    }

    /** Adds the TLS detector to a new connection's pipeline when TLS is set. */
    void initTls(SocketChannel ch) {
        io.basalt.remoting.tls.TlsMode mode = tlsMode;
        if (mode != null && tlsContext != null) {
            ch.pipeline().addLast(new io.basalt.remoting.tls.TlsDetector(mode, tlsContext, reason -> { }));
        }
    }

    /** Whether {@link #listen} bound the port (so endpoints attach instead of binding their own). */
    public synchronized boolean isListening() {
        return serverChannel != null;
    }

    /** The port {@link #listen} bound, -1 before. */
    public synchronized int localPort() {
        return serverChannel == null ? -1 : ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** New connections go to {@code service} from now on. */
    synchronized void attach(HAService service) {
        attached = service;
    }

    /** New connections are closed again, unless another endpoint was attached since {@code service}. */
    synchronized void detach(HAService service) {
        if (attached == service) {
            attached = null;
        }
    }

    /**
     * Creates the loops and starts their threads now (Netty starts a loop's thread at its first task), so that the
     * first endpoint on them finds them running.
     */
    public synchronized void prestart() {
        create();
        boss.forEach(loop -> loop.execute(() -> { }));
        workers.forEach(loop -> loop.execute(() -> { }));
    }

    /** Unbinds the port and stops the threads (waiting up to 2 s each group for them to end). Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        attached = null;
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
            serverChannel = null;
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            boss = null;
            workers = null;
        }
    }
}
