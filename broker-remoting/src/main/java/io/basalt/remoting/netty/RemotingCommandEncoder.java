package io.basalt.remoting.netty;

import io.basalt.remoting.protocol.RemotingCommand;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes a command as one composite buffer: the encoded length words and header, then the body array
 * wrapped as it is. The body is not copied here; the transport copies it once into its direct
 * buffer. Stateless and shared by all channels.
 */
@ChannelHandler.Sharable
final class RemotingCommandEncoder extends MessageToMessageEncoder<RemotingCommand> {
    static final RemotingCommandEncoder INSTANCE = new RemotingCommandEncoder();

    private RemotingCommandEncoder() {
        super(RemotingCommand.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, RemotingCommand cmd, List<Object> out) {
        byte[] prefix = cmd.encodeFramePrefix();
        java.nio.ByteBuffer[] slices = cmd.bodySlices();
        if (slices != null) {
            // Zero copy: the slices (mapped file views) are wrapped, not copied; the command's owner
            // releases them once the write completed.
            java.nio.ByteBuffer[] parts = new java.nio.ByteBuffer[slices.length + 1];
            parts[0] = java.nio.ByteBuffer.wrap(prefix);
            for (int i = 0; i < slices.length; i++) {
                parts[i + 1] = slices[i].duplicate();
            }
            out.add(Unpooled.wrappedBuffer(parts));
            return;
        }
        byte[] body = cmd.body();
        out.add(body == null || body.length == 0 ? Unpooled.wrappedBuffer(prefix) : Unpooled.wrappedBuffer(prefix, body));
    }
}
