package io.basalt.remoting.netty;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestDispatcher;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.processor.RequestGate;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.tls.TlsDetector;
import io.basalt.remoting.tls.TlsMode;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SerializeType;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remoting server: accepts connections, decodes frames into commands and hands requests to the
 * {@link RequestDispatcher}. Register processors, then {@link #start()}; {@link #shutdown()} stops
 * accepting, waits for accepted requests to be answered (up to the configured drain timeout), then
 * closes every connection and stops its threads. The registered executors belong to the caller.
 *
 * <p>Threads: {@code NettyBoss_1} accepts, {@code NettyServer<EPOLL|NIO>Selector_<n>_<i>} do all
 * channel I/O, decoding, encoding and response writes, {@code NettyServerTimer} times out the
 * server's own calls to peers ({@link io.basalt.remoting.processor.RemotingConnection#invoke}).
 */
public final class NettyRemotingServer {
    private static final Logger log = LoggerFactory.getLogger(NettyRemotingServer.class);

    private final NettyServerConfig config;
    private final Transport transport;
    private final RequestDispatcher dispatcher = new RequestDispatcher();
    private TlsMode tlsMode;
    private SslContext tlsContext;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong malformedFrames = new AtomicLong();
    private final ConnectionCloses closes = new ConnectionCloses();
    private final PartialFrameBudget partialFrames;
    private final List<Consumer<RemotingConnection>> closeListeners = new CopyOnWriteArrayList<>();
    private HashedWheelTimer timer;
    private PendingRequests calls;
    private EventLoopGroup bossGroup;
    private EventLoopGroup selectorGroup;
    private ChannelGroup channels;
    private Channel serverChannel;
    private boolean started;
    private boolean shutdown;

    public NettyRemotingServer(NettyServerConfig config) {
        this.config = config;
        this.transport = Transport.choose(config.useEpoll());
        this.partialFrames = new PartialFrameBudget(config.partialFrameBudgetBytes());
    }

    /** Routes {@code requestCode} to {@code processor} on {@code executor}. Call before {@link #start()}. */
    public synchronized void registerProcessor(int requestCode, RequestProcessor processor, RequestExecutor executor) {
        if (started) {
            throw new IllegalStateException("register processors before start()");
        }
        dispatcher.register(requestCode, processor, executor);
    }

    /**
     * TLS on this port ({@link TlsMode}; {@code context} may be null only when disabled); set before {@link #start()}.
     * Without a call the port is plaintext only and a TLS handshake is read as a malformed frame.
     */
    public synchronized void setTls(TlsMode mode, SslContext context) {
        if (started) {
            throw new IllegalStateException("TLS is set before start");
        }
        this.tlsMode = mode;
        this.tlsContext = context;
    }

    /** The gate every request of this server passes before its processor (authentication); set before {@link #start()}. */
    public void setGate(RequestGate gate) {
        dispatcher.setGate(gate);
    }

    /**
     * Calls {@code listener} with each connection once it has closed, on that connection's event loop (so it
     * must not block), e.g. to forget the clients registered on it.
     */
    public void onConnectionClosed(Consumer<RemotingConnection> listener) {
        closeListeners.add(listener);
    }

    private void tellClosed(RemotingConnection connection) {
        for (Consumer<RemotingConnection> listener : closeListeners) {
            try {
                listener.accept(connection);
            } catch (RuntimeException e) {
                log.warn("connection close listener failed for {}", connection, e);
            }
        }
    }

    /** Binds and starts serving. */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        timer = new HashedWheelTimer(Transport.namedThreads("NettyServerTimer", 1), 10, TimeUnit.MILLISECONDS);
        calls = new PendingRequests(timer);
        bossGroup = transport.newGroup(1, "NettyBoss_%2$d");
        selectorGroup = transport.newGroup(config.selectorThreads(), "NettyServer" + transport + "Selector_%d_%d");
        channels = new DefaultChannelGroup("remoting-server", GlobalEventExecutor.INSTANCE);
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(bossGroup, selectorGroup)
            .channel(transport.serverChannelClass())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, false)
            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(config.writeBufferLowWaterMark(), config.writeBufferHighWaterMark()))
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    channels.add(ch);
                    ServerConnectionHandler handler =
                        new ServerConnectionHandler(dispatcher, connections, calls, closes, config.unwritableCloseMs());
                    if (tlsMode != null) {
                        ch.pipeline().addLast(new TlsDetector(tlsMode, tlsContext,
                            reason -> closes.count(CloseReason.TLS_REFUSED)));
                    }
                    ch.pipeline().addLast(
                        new IdleStateHandler(0, 0, config.channelMaxIdleSeconds(), TimeUnit.SECONDS),
                        new RemotingFrameDecoder(config.maxFrameLength(), NettyRemotingServer.this::malformed,
                            partialFrames, config.frameCompleteTimeoutMs(), closes),
                        RemotingCommandEncoder.INSTANCE,
                        handler);
                    ch.closeFuture().addListener(f -> tellClosed(handler));
                }
            });
        try {
            serverChannel = bootstrap.bind(new InetSocketAddress(config.bindAddress(), config.listenPort()))
                .syncUninterruptibly().channel();
        } catch (Exception e) {
            // syncUninterruptibly rethrows the bind failure (a checked IOException) undeclared.
            shutdown = true;
            stopThreads();
            throw new IllegalStateException("cannot listen on " + config.bindAddress() + ":" + config.listenPort(), e);
        }
        log.info("remoting server listening on {} ({} transport)", serverChannel.localAddress(), transport);
    }

    /** Counts the bad frame, answers it when its opaque is known, and closes the connection. */
    private void malformed(ChannelHandlerContext ctx, String reason, Integer opaque) {
        malformedFrames.incrementAndGet();
        closes.count(CloseReason.MALFORMED_FRAME);
        log.warn("closing connection from {}: malformed frame: {}", ctx.channel().remoteAddress(), reason);
        if (opaque == null) {
            ctx.close();
            return;
        }
        RemotingCommand answer = RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "malformed request: " + reason);
        answer.setOpaque(opaque);
        answer.setSerializeType(SerializeType.ROCKETMQ);
        // From the tail of the pipeline: the encoder sits after the decoder whose context this is.
        ctx.channel().writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    }

    /** The bound port (useful when configured with port 0). */
    public int localPort() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Connections currently open. */
    public int connectionCount() {
        return connections.get();
    }

    /** Connections closed so far because they sent a malformed frame. */
    public long malformedFrameCount() {
        return malformedFrames.get();
    }

    /** Connections the server closed so far for {@code reason}. */
    public long closedConnections(CloseReason reason) {
        return closes.get(reason);
    }

    /** Bytes of unfinished frames all connections hold now (bounded by the partial-frame budget). */
    public long partialFrameBytes() {
        return partialFrames.held();
    }

    /** Requests accepted and not yet answered. */
    public int inFlightRequests() {
        return dispatcher.inFlight();
    }

    public boolean usesEpoll() {
        return transport == Transport.EPOLL;
    }

    /**
     * Stops accepting connections, answers requests that arrive meanwhile with GO_AWAY (SYSTEM_BUSY for
     * old peers), waits up to the drain timeout for accepted requests to be answered, then closes all
     * connections and stops the I/O threads. Idempotent.
     */
    public synchronized void shutdown() {
        if (!started || shutdown) {
            return;
        }
        shutdown = true;
        serverChannel.close().syncUninterruptibly();
        try {
            dispatcher.drain().get(config.shutdownDrainTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("shutdown: {} requests still unanswered after {} ms, closing anyway",
                dispatcher.inFlight(), config.shutdownDrainTimeoutMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("drain failed", e.getCause());
        }
        channels.close().awaitUninterruptibly();
        stopThreads();
        log.info("remoting server on {} shut down", serverChannel.localAddress());
    }

    private void stopThreads() {
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        selectorGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        timer.stop();
        calls.failAll("server shut down");
    }
}
