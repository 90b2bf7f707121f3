package io.basalt.remoting.netty;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the byte stream into frames ({@code int length} then {@code length} bytes, the whole frame at
 * most {@code maxFrameLength} bytes) and decodes each into a {@link RemotingCommand}.
 *
 * <p>Bad input — a frame over the limit, a negative length, a header that does not parse, an unknown
 * serialization type, lengths that do not add up — is reported once to the {@link MalformedFrameHandler},
 * which closes the connection; whatever else that peer sends is discarded. One instance per channel,
 * called on its event loop.
 *
 * <p>Memory bounds (server side): the bytes of an unfinished frame are buffered as they arrive, never
 * allocated by the declared length, and reserved in the server's {@link PartialFrameBudget}; a
 * connection whose reservation would pass the budget is closed ({@link CloseReason#PARTIAL_FRAME_BUDGET}),
 * and so is one whose begun frame is not complete within the frame timeout
 * ({@link CloseReason#FRAME_TIMEOUT}: a peer that sends a large length and then stalls or trickles).
 */
final class RemotingFrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final Logger log = LoggerFactory.getLogger(RemotingFrameDecoder.class);

    /** "PRI " (0x50524920): the start of the HTTP/2 client preface, which no remoting frame length starts with. */
    static final int HTTP2_PREFACE_START = 0x50524920;

    private final MalformedFrameHandler onMalformed;
    private boolean firstBytesSeen;
    private final PartialFrameBudget budget;
    private final long frameTimeoutNanos;
    private final ConnectionCloses closes;
    private boolean failed;
    /** Bytes of this connection reserved in the budget: what it buffers of an unfinished frame. */
    private long reserved;
    /** When the unfinished frame began (System.nanoTime), or 0 when none is buffered. */
    private long partialSinceNanos;
    private ScheduledFuture<?> timeoutCheck;

    /** Told once per connection about the first malformed frame. */
    @FunctionalInterface
    interface MalformedFrameHandler {
        /**
         * @param opaque the opaque of the broken request when it could be read and its sender waits
         *     for an answer, else null
         */
        void malformed(ChannelHandlerContext ctx, String reason, Integer opaque);
    }

    /** A decoder without memory bounds (the client's: it reads only its own server's answers). */
    RemotingFrameDecoder(int maxFrameLength, MalformedFrameHandler onMalformed) {
        this(maxFrameLength, onMalformed, new PartialFrameBudget(Long.MAX_VALUE), 0, new ConnectionCloses());
    }

    /**
     * @param budget the server's budget shared by every connection
     * @param frameTimeoutMs time a begun frame has to complete; 0 for no limit
     * @param closes where closes for the two memory bounds are counted
     */
    RemotingFrameDecoder(int maxFrameLength, MalformedFrameHandler onMalformed, PartialFrameBudget budget,
        long frameTimeoutMs, ConnectionCloses closes) {
        super(maxFrameLength, 0, 4, 0, 4, true);
        this.onMalformed = onMalformed;
        this.budget = budget;
        this.frameTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(frameTimeoutMs);
        this.closes = closes;
    }

    /** RocketMQ's length word is a signed int: a negative one is corrupt, not four gigabytes. */
    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        return buf.getInt(offset);
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return null;
        }
        if (!firstBytesSeen && in.readableBytes() >= 4) {
            firstBytesSeen = true;
            if (in.getInt(in.readerIndex()) == HTTP2_PREFACE_START) {
                // a RocketMQ 5.x SDK (gRPC, HTTP/2) pointed at the remoting port: say so rather than "frame too long"
                failed = true;
                in.skipBytes(in.readableBytes());
                onMalformed.malformed(ctx, "an HTTP/2 (gRPC) client connected to the remoting port: RocketMQ 5.x SDK"
                    + " clients connect to the broker's gRPC port (grpcServerPort)", null);
                return null;
            }
        }
        ByteBuf frame = null;
        try {
            frame = (ByteBuf) super.decode(ctx, in);
            if (!account(ctx, in.readableBytes(), frame != null)) {
                return null;
            }
            if (frame == null) {
                return null;
            }
            ByteBuffer view = frame.nioBufferCount() == 1 ? frame.nioBuffer() : ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
            return RemotingCommand.decode(view);
        } catch (Exception e) {
            // The boundary: whatever the bytes did to the codec, this peer is done and nobody else notices.
            failed = true;
            in.skipBytes(in.readableBytes());
            Integer opaque = e instanceof RemotingCommandException broken ? broken.opaque() : null;
            onMalformed.malformed(ctx, e.getClass().getSimpleName() + ": " + e.getMessage(), opaque);
            return null;
        } finally {
            if (frame != null) {
                frame.release();
            }
        }
    }

    /**
     * Reserves what this connection now buffers and starts the unfinished frame's clock.
     *
     * @param buffered bytes left in the cumulation after this decode step
     * @param frameDone whether this step completed a frame (what is left, if anything, begins the next)
     * @return false when the connection was closed for passing the budget
     */
    private boolean account(ChannelHandlerContext ctx, long buffered, boolean frameDone) {
        if (!budget.adjust(buffered - reserved)) {
            failed = true;
            closes.count(CloseReason.PARTIAL_FRAME_BUDGET);
            log.warn("closing connection from {}: its unfinished frame ({} bytes) would pass the partial-frame budget"
                + " ({} of {} bytes held by all connections)", ctx.channel().remoteAddress(), buffered, budget.held(),
                budget.limit());
            giveBack();
            ctx.close();
            return false;
        }
        reserved = buffered;
        if (buffered == 0) {
            partialSinceNanos = 0;
        } else if (partialSinceNanos == 0 || frameDone) {
            partialSinceNanos = System.nanoTime();
            scheduleTimeoutCheck(ctx, frameTimeoutNanos);
        }
        return true;
    }

    private void scheduleTimeoutCheck(ChannelHandlerContext ctx, long delayNanos) {
        if (frameTimeoutNanos == 0 || timeoutCheck != null) {
            return;
        }
        timeoutCheck = ctx.executor().schedule(() -> checkTimeout(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    /** On the event loop: closes the connection when its unfinished frame is older than the timeout. */
    private void checkTimeout(ChannelHandlerContext ctx) {
        timeoutCheck = null;
        if (failed || partialSinceNanos == 0 || !ctx.channel().isActive()) {
            return;
        }
        long age = System.nanoTime() - partialSinceNanos;
        if (age < frameTimeoutNanos) {
            scheduleTimeoutCheck(ctx, frameTimeoutNanos - age);
            return;
        }
        failed = true;
        closes.count(CloseReason.FRAME_TIMEOUT);
        log.warn("closing connection from {}: frame not complete after {} ms ({} bytes received)",
            ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(age), reserved);
        giveBack();
        ctx.close();
    }

    private void giveBack() {
        budget.adjust(-reserved);
        reserved = 0;
        partialSinceNanos = 0;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        giveBack();
        if (timeoutCheck != null) {
            timeoutCheck.cancel(false);
            timeoutCheck = null;
        }
        super.handlerRemoved0(ctx);
    }

    /** Bytes of an unfinished frame this connection holds in the budget (tests). */
    long reservedBytes() {
        return reserved;
    }
}
