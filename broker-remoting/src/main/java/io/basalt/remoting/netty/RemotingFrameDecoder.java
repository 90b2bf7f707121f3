package io.basalt.remoting.netty;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Cuts the byte stream into frames ({@code int length} then {@code length} bytes, the whole frame at
 * most {@code maxFrameLength} bytes) and decodes each into a {@link RemotingCommand}.
 *
 * <p>Bad input — a frame over the limit, a negative length, a header that does not parse, an unknown
 * serialization type, lengths that do not add up — is reported once to the {@link MalformedFrameHandler},
 * which closes the connection; whatever else that peer sends is discarded. One instance per channel,
 * called on its event loop.
 */
final class RemotingFrameDecoder extends LengthFieldBasedFrameDecoder {
    private final MalformedFrameHandler onMalformed;
    private boolean failed;

    /** Told once per connection about the first malformed frame. */
    @FunctionalInterface
    interface MalformedFrameHandler {
        /**
         * @param opaque the opaque of the broken request when it could be read and its sender waits
         *     for an answer, else null
         */
        void malformed(ChannelHandlerContext ctx, String reason, Integer opaque);
    }

    RemotingFrameDecoder(int maxFrameLength, MalformedFrameHandler onMalformed) {
        super(maxFrameLength, 0, 4, 0, 4, true);
        this.onMalformed = onMalformed;
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
        ByteBuf frame = null;
        try {
            frame = (ByteBuf) super.decode(ctx, in);
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
}
