package io.basalt.remoting.netty;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.HashedWheelTimer;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A remoting client for tools and broker-to-broker calls: sync, async and one-way invokes with
 * timeouts, one reused connection per address.
 *
 * <p>Each outstanding request sits in an opaque → pending table until its response arrives, its
 * connection closes, or a timer ({@code NettyClientTimer}) fails it with
 * {@link RemotingTimeoutException}. Async futures complete on the connection's I/O thread
 * ({@code NettyClientSelector_<n>_<i>}): do not block in their callbacks. All methods are thread-safe.
 */
public final class NettyRemotingClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NettyRemotingClient.class);

    private final NettyClientConfig config;
    private final Transport transport;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final HashedWheelTimer timer;
    private final ConcurrentMap<String, ChannelFuture> connections = new ConcurrentHashMap<>();
    private final PendingRequests pending;
    private final Object connectLock = new Object();
    private volatile boolean closed;
    /** Runs on every request before it is sent (the broker's signature); none by default. */
    private volatile java.util.function.Consumer<RemotingCommand> beforeSend = request -> { };

    public NettyRemotingClient(NettyClientConfig config) {
        this(config, null);
    }

    /** A client whose every connection speaks TLS with {@code tls} (null: plaintext). */
    public NettyRemotingClient(NettyClientConfig config, SslContext tls) {
        this.config = config;
        this.transport = Transport.choose(config.useEpoll());
        this.group = transport.newGroup(config.workerThreads(), "NettyClientSelector_%d_%d");
        this.timer = new HashedWheelTimer(Transport.namedThreads("NettyClientTimer", 1), 10, TimeUnit.MILLISECONDS);
        this.pending = new PendingRequests(timer);
        this.bootstrap = new Bootstrap()
            .group(group)
            .channel(transport.channelClass())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, false)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(
                        new IdleStateHandler(0, 0, config.channelMaxIdleSeconds(), TimeUnit.SECONDS),
                        new RemotingFrameDecoder(config.maxFrameLength(), (ctx, reason, opaque) -> {
                            log.warn("closing connection to {}: malformed frame: {}", ctx.channel().remoteAddress(), reason);
                            ctx.close();
                        }),
                        RemotingCommandEncoder.INSTANCE,
                        new ClientConnectionHandler());
                }
            });
    }

    /**
     * Sends {@code request} to {@code address} ("host:port") and waits for the response.
     *
     * @throws RemotingTimeoutException no response within {@code timeoutMs} (connect time included)
     * @throws RemotingConnectException no connection, or it closed before the response
     * @throws RemotingSendRequestException the request could not be written
     */
    public RemotingCommand invokeSync(String address, RemotingCommand request, long timeoutMs)
        throws RemotingException, InterruptedException {
        try {
            return invokeAsync(address, request, timeoutMs).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RemotingException remoting) {
                throw remoting;
            }
            throw new RemotingException("call to " + address + " failed", e.getCause());
        }
    }

    /**
     * Sends {@code request} and returns the response future; it fails with a {@link RemotingException}
     * on timeout, connection loss or a failed write. It never completes late: the timer removes the
     * table entry before failing it.
     */
    /**
     * Sets what every request goes through before it is sent: the broker signs its own requests with it when access
     * control is on. Set before the first request.
     */
    public void beforeSend(java.util.function.Consumer<RemotingCommand> hook) {
        this.beforeSend = hook == null ? request -> { } : hook;
    }

    public CompletableFuture<RemotingCommand> invokeAsync(String address, RemotingCommand request, long timeoutMs) {
        beforeSend.accept(request);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        CompletableFuture<RemotingCommand> result = new CompletableFuture<>();
        connect(address, timeoutMs).whenComplete((channel, connectError) -> {
            if (connectError != null) {
                result.completeExceptionally(connectError);
                return;
            }
            long remainingNanos = deadline - System.nanoTime();
            if (remainingNanos <= 0) {
                result.completeExceptionally(new RemotingTimeoutException("connecting to " + address + " took longer than "
                    + timeoutMs + " ms"));
                return;
            }
            pending.send(channel, request, remainingNanos, timeoutMs, address).whenComplete((response, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(response);
                }
            });
        });
        return result;
    }

    /**
     * Marks {@code request} one-way and sends it; the future completes once it is written (no response
     * comes) or fails when it cannot be.
     */
    public CompletableFuture<Void> invokeOneway(String address, RemotingCommand request, long timeoutMs) {
        request.markOneway();
        beforeSend.accept(request);
        CompletableFuture<Void> written = new CompletableFuture<>();
        connect(address, timeoutMs).whenComplete((channel, connectError) -> {
            if (connectError != null) {
                written.completeExceptionally(connectError);
                return;
            }
            channel.writeAndFlush(request).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    written.complete(null);
                } else {
                    written.completeExceptionally(new RemotingSendRequestException("cannot send one-way request code "
                        + request.code() + " to " + address, f.cause()));
                }
            });
        });
        return written;
    }

    /** Requests sent and not yet answered, timed out or failed. */
    public int pendingRequests() {
        return pending.size();
    }

    /** Open connections. */
    public int connectionCount() {
        return (int) connections.values().stream().filter(f -> f.isSuccess() && f.channel().isActive()).count();
    }

    /** Closes the connection to {@code address}, failing its pending requests. */
    public void closeConnection(String address) {
        ChannelFuture f = connections.remove(address);
        if (f != null) {
            f.channel().close();
        }
    }

    /** The live connection to {@code address}, opened if there is none. */
    private CompletableFuture<Channel> connect(String address, long timeoutMs) {
        CompletableFuture<Channel> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new RemotingConnectException("client is shut down", null));
            return result;
        }
        ChannelFuture connecting;
        try {
            connecting = usableConnection(address, timeoutMs);
        } catch (IllegalArgumentException e) {
            result.completeExceptionally(new RemotingConnectException("bad address " + address, e));
            return result;
        }
        connecting.addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
                result.complete(f.channel());
            } else {
                connections.remove(address, f);
                result.completeExceptionally(new RemotingConnectException("cannot connect to " + address, f.cause()));
            }
        });
        return result;
    }

    /**
     * The connection to reuse, or a new one. Opening happens under a lock rather than inside the map's
     * compute, since a failed connect may run the close listener (which edits the map) at once.
     */
    private ChannelFuture usableConnection(String address, long timeoutMs) {
        ChannelFuture existing = connections.get(address);
        if (isUsable(existing)) {
            return existing;
        }
        synchronized (connectLock) {
            existing = connections.get(address);
            if (isUsable(existing)) {
                return existing;
            }
            ChannelFuture opened = openConnection(address, timeoutMs);
            if (!opened.isDone() || opened.isSuccess()) {
                connections.put(address, opened);
            }
            return opened;
        }
    }

    private static boolean isUsable(ChannelFuture f) {
        return f != null && (!f.isDone() || f.channel().isActive());
    }

    private ChannelFuture openConnection(String address, long timeoutMs) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("address must be host:port: " + address);
        }
        int port = Integer.parseInt(address.substring(colon + 1));
        int connectTimeoutMs = (int) Math.max(1, Math.min(config.connectTimeoutMs(), timeoutMs));
        ChannelFuture f = bootstrap.clone()
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
            .connect(InetSocketAddress.createUnresolved(address.substring(0, colon), port));
        f.channel().closeFuture().addListener(closed -> {
            connections.remove(address, f);
            pending.failAllOf(f.channel());
        });
        return f;
    }

    /** Closes every connection, fails what is pending and stops the threads. Idempotent; any thread. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        connections.values().forEach(f -> f.channel().close().awaitUninterruptibly());
        connections.clear();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        timer.stop();
        pending.failAll("client shut down");
    }

    /** Completes pending requests with their responses; refuses requests the server sends this client. */
    private final class ClientConnectionHandler extends SimpleChannelInboundHandler<RemotingCommand> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RemotingCommand cmd) {
            if (cmd.isResponse()) {
                if (!pending.complete(cmd)) {
                    log.debug("response from {} for opaque {} came after its caller gave up", ctx.channel().remoteAddress(),
                        cmd.opaque());
                }
            } else if (!cmd.isOneway()) {
                RemotingCommand refusal = RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + cmd.code() + " not supported");
                refusal.setOpaque(cmd.opaque());
                refusal.setSerializeType(cmd.serializeType());
                ctx.writeAndFlush(refusal);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent) {
                log.info("closing idle connection to {}", ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.warn("closing connection to {}: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }
}
