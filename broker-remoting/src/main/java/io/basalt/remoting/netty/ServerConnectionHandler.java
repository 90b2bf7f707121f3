package io.basalt.remoting.netty;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestDispatcher;
import io.basalt.remoting.processor.ResponseChannel;
import io.basalt.remoting.protocol.RemotingCommand;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.EventLoop;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a server connection: counts it, closes it when idle, passes each request to
 * the dispatcher, writes the responses back on the connection's event loop, and completes the
 * server's own calls to the peer with the peer's responses. One per connection, and the connection's
 * {@link RemotingConnection} handle.
 *
 * <p>Back-pressure: while the connection's pending responses are above the high water mark (a peer
 * that does not read them), no more requests are read from it; if it stays so for the unwritable
 * limit, it is closed ({@link CloseReason#UNWRITABLE}), so such peers cannot grow the server's memory.
 */
final class ServerConnectionHandler extends SimpleChannelInboundHandler<RemotingCommand>
    implements ResponseChannel, RemotingConnection {
    private static final Logger log = LoggerFactory.getLogger(ServerConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final AtomicInteger connections;
    /** Unread response bytes, in high water marks, past which a paused peer is closed without waiting. */
    private static final int PENDING_HARD_LIMIT_FACTOR = 16;

    private final PendingRequests calls;
    private final ConnectionCloses closes;
    private final long unwritableCloseMs;
    private ScheduledFuture<?> unwritableClose;
    /** A flush task is queued on the event loop (event loop only). */
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushNow;
    private Channel channel;
    private SocketAddress remote;
    private SocketAddress local;

    ServerConnectionHandler(RequestDispatcher dispatcher, AtomicInteger connections, PendingRequests calls,
        ConnectionCloses closes, long unwritableCloseMs) {
        this.dispatcher = dispatcher;
        this.connections = connections;
        this.calls = calls;
        this.closes = closes;
        this.unwritableCloseMs = unwritableCloseMs;
    }

    /** On the event loop: pauses reading while responses pile up, and gives the peer a deadline to read them. */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        Channel ch = ctx.channel();
        if (!ch.isWritable()) {
            ch.config().setAutoRead(false);
            if (unwritableCloseMs > 0 && unwritableClose == null) {
                unwritableClose = ctx.executor().schedule(() -> closeIfStillUnwritable(ctx), unwritableCloseMs,
                    TimeUnit.MILLISECONDS);
            }
        } else {
            ch.config().setAutoRead(true);
            if (unwritableClose != null) {
                unwritableClose.cancel(false);
                unwritableClose = null;
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    private void closeIfStillUnwritable(ChannelHandlerContext ctx) {
        unwritableClose = null;
        if (ctx.channel().isActive() && !ctx.channel().isWritable()) {
            closes.count(CloseReason.UNWRITABLE);
            log.warn("closing connection from {}: it has not read its responses for {} ms ({} bytes pending)", remote,
                unwritableCloseMs, ctx.channel().unsafe().outboundBuffer() == null ? 0
                    : ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes());
            ctx.close();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        remote = channel.remoteAddress();
        local = channel.localAddress();
        connections.incrementAndGet();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connections.decrementAndGet();
        calls.failAllOf(channel);
        if (unwritableClose != null) {
            unwritableClose.cancel(false);
            unwritableClose = null;
        }
        super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, RemotingCommand cmd) {
        if (cmd.isResponse()) {
            if (!calls.complete(cmd)) {
                log.debug("{} sent a response (opaque {}) nobody waits for; dropped", remote, cmd.opaque());
            }
            return;
        }
        dispatcher.dispatch(cmd, new RequestContext(this, remote, local, System.nanoTime()), this);
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isActive() {
        return channel.isActive();
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
        return calls.send(channel, request, TimeUnit.MILLISECONDS.toNanos(timeoutMs), timeoutMs, String.valueOf(remote));
    }

    @Override
    public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
        request.markOneway();
        CompletableFuture<Void> written = new CompletableFuture<>();
        channel.writeAndFlush(request).addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(new RemotingSendRequestException("cannot send one-way request code "
                    + request.code() + " to " + remote, f.cause()));
            }
        });
        return written;
    }

    @Override
    public void close() {
        channel.close();
    }

    @Override
    public String toString() {
        return "RemotingConnection[" + remote + "]";
    }

    @Override
    public void write(RemotingCommand response, Runnable whenDone) {
        if (!channel.isActive()) {
            whenDone.run();
            return;
        }
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            writeNow(response, whenDone);
        } else {
            try {
                loop.execute(() -> writeNow(response, whenDone));
            } catch (RejectedExecutionException e) {
                whenDone.run();
            }
        }
    }

    private void writeNow(RemotingCommand response, Runnable whenDone) {
        if (!channel.isActive()) {
            whenDone.run();
            return;
        }
        ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
        if (pending != null && !channel.isWritable() && unwritableCloseMs > 0
            && pending.totalPendingWriteBytes() > PENDING_HARD_LIMIT_FACTOR * channel.config().getWriteBufferHighWaterMark()) {
            // Requests read before the pause still answer; past this much unread, the peer is dropped at once.
            closes.count(CloseReason.UNWRITABLE);
            log.warn("closing connection from {}: {} bytes of responses unread", remote, pending.totalPendingWriteBytes());
            channel.close();
            whenDone.run();
            return;
        }
        channel.write(response).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                log.warn("response (code {}, opaque {}) to {} not written: {}", response.code(), response.opaque(),
                    remote, f.cause().toString());
            }
            whenDone.run();
        });
        scheduleFlush();
    }

    /**
     * One flush for the responses written in a burst: the flush runs as a task queued behind the writes
     * already waiting on the event loop (a group commit completes many sends at once, each queues its
     * write), so they leave in one writev instead of one syscall each. Event loop only.
     */
    private void scheduleFlush() {
        if (flushScheduled) {
            return;
        }
        flushScheduled = true;
        try {
            channel.eventLoop().execute(flushTask);
        } catch (RejectedExecutionException e) {
            flushNow();
        }
    }

    private void flushNow() {
        flushScheduled = false;
        channel.flush();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            log.info("closing idle connection from {}", remote);
            closes.count(CloseReason.IDLE);
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.info("closing connection from {}: {}", remote, cause.toString());
        } else {
            log.warn("closing connection from {}", remote, cause);
        }
        ctx.close();
    }
}
