package io.basalt.remoting.tls;

import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;

/**
 * The first handler of a server connection when TLS is configured: it reads the connection's first byte and decides,
 * by {@link TlsMode}, before anything reaches the request decoder. A TLS handshake starts with {@code 0x16} (a
 * handshake record); a RocketMQ frame starts with its big-endian length, whose first byte is 0 for every frame under
 * 16 MiB, so the test is unambiguous (RocketMQ's server makes the same one).
 *
 * <ul>
 * <li>{@code 0x16}: with {@link TlsMode#DISABLED} the connection is closed and logged; otherwise an SSL handler takes
 *     its place, and the handshake goes on.</li>
 * <li>anything else: with {@link TlsMode#ENFORCING} the connection is closed and every byte it sent is dropped, so
 *     that no request of it is ever executed (RocketMQ 5.2.0 passes them on while closing: apache/rocketmq#10110);
 *     otherwise this handler steps aside and the bytes go to the request decoder.</li>
 * </ul>
 */
public final class TlsDetector extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(TlsDetector.class);
    /** The content type of a TLS handshake record. */
    static final int HANDSHAKE_RECORD = 0x16;

    private final TlsMode mode;
    private final SslContext context;
    private final Consumer<String> refused;
    private boolean closing;

    /**
     * @param context the server's TLS context; may be null only with {@link TlsMode#DISABLED}
     * @param refused told the reason of each connection it closes (for a metric)
     */
    public TlsDetector(TlsMode mode, SslContext context, Consumer<String> refused) {
        if (mode != TlsMode.DISABLED && context == null) {
            throw new IllegalArgumentException("TLS mode " + mode + " needs a TLS context");
        }
        this.mode = mode;
        this.context = context;
        this.refused = refused;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (closing) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (!in.isReadable()) {
            return;
        }
        boolean tls = in.getUnsignedByte(in.readerIndex()) == HANDSHAKE_RECORD;
        if (tls && mode == TlsMode.DISABLED) {
            refuse(ctx, in, "tls_disabled", "a client started a TLS handshake, but TLS is disabled here"
                + " (tls.server.mode=disabled)");
            return;
        }
        if (!tls && mode == TlsMode.ENFORCING) {
            refuse(ctx, in, "plaintext_refused", "a plaintext client, but this port takes TLS only"
                + " (tls.server.mode=enforcing)");
            return;
        }
        if (tls) {
            ctx.pipeline().addAfter(ctx.name(), "ssl", context.newHandler(ctx.alloc()));
        }
        // removing a ByteToMessageDecoder hands the bytes it holds to the next handler
        ctx.pipeline().remove(this);
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf in, String reason, String message) {
        closing = true;
        in.skipBytes(in.readableBytes());
        log.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), message);
        refused.accept(reason);
        ctx.close();
    }
}
