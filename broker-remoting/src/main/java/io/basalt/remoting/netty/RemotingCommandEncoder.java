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
        byte[] body = cmd.body();
        out.add(body == null || body.length == 0 ? Unpooled.wrappedBuffer(prefix) : Unpooled.wrappedBuffer(prefix, body));
    }
}
