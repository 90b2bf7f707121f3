package io.basalt.broker.grpc;

import io.basalt.remoting.tls.TlsMode;
import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiationEvent;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.ProtocolNegotiationEvent;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.handler.codec.ByteToMessageDecoder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS and plaintext HTTP/2 on one port: the first byte of a connection decides (a TLS record starts with 0x16, the
 * plaintext HTTP/2 preface with 'P'), as RocketMQ's proxy does, so that default 5.x clients (TLS) and
 * {@code enableSsl(false)} clients both connect. {@code tls.server.mode} applies: {@code disabled} refuses TLS,
 * {@code enforcing} refuses plaintext. A RocketMQ remoting frame (its length word starts with 0) and anything else
 * are refused with a log line that says what connected and where it should go.
 */
final class TlsSniffingNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
    private static final Logger log = LoggerFactory.getLogger(TlsSniffingNegotiator.class);
    static final int TLS_HANDSHAKE_RECORD = 0x16;
    static final int HTTP2_PREFACE_FIRST_BYTE = 'P';

    private final TlsMode mode;
    private final SslContext tls;
    private final String remotingHint;

    /**
     * @param tls          the server's TLS context; null only with {@link TlsMode#DISABLED}
     * @param remotingHint where remoting clients should connect, for the log line (e.g. "listenPort 10911")
     */
    TlsSniffingNegotiator(TlsMode mode, SslContext tls, String remotingHint) {
        this.mode = mode;
        this.tls = tls;
        this.remotingHint = remotingHint;
    }

    @Override
    public AsciiString scheme() {
        return AsciiString.of(mode == TlsMode.DISABLED ? "http" : "https");
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
        return new Sniffer(grpcHandler);
    }

    @Override
    public void close() {
    }

    /** What the first byte of a connection says it is. */
    enum Kind { TLS, PLAINTEXT_HTTP2, REMOTING, UNKNOWN }

    static Kind classify(int firstByte) {
        if (firstByte == TLS_HANDSHAKE_RECORD) {
            return Kind.TLS;
        }
        if (firstByte == HTTP2_PREFACE_FIRST_BYTE) {
            return Kind.PLAINTEXT_HTTP2;
        }
        // a remoting frame's big-endian length: its first byte is 0 for any frame under 16 MiB
        if (firstByte == 0) {
            return Kind.REMOTING;
        }
        return Kind.UNKNOWN;
    }

    private final class Sniffer extends ByteToMessageDecoder {
        private final GrpcHttp2ConnectionHandler grpcHandler;
        private ProtocolNegotiationEvent event = InternalProtocolNegotiationEvent.getDefault();

        Sniffer(GrpcHttp2ConnectionHandler grpcHandler) {
            this.grpcHandler = grpcHandler;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof ProtocolNegotiationEvent e) {
                // held until the protocol is known, then passed to the handler chosen
                event = e;
            } else {
                super.userEventTriggered(ctx, evt);
            }
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (!in.isReadable()) {
                return;
            }
            Kind kind = classify(in.getUnsignedByte(in.readerIndex()));
            ChannelHandler next;
            switch (kind) {
                case TLS -> {
                    if (mode == TlsMode.DISABLED) {
                        refuse(ctx, in, "a TLS client, but TLS is disabled (tls.server.mode=disabled): connect"
                            + " with enableSsl(false)");
                        return;
                    }
                    next = InternalProtocolNegotiators.serverTls(tls).newHandler(grpcHandler);
                }
                case PLAINTEXT_HTTP2 -> {
                    if (mode == TlsMode.ENFORCING) {
                        refuse(ctx, in, "a plaintext client, but this port takes TLS only (tls.server.mode=enforcing):"
                            + " connect with TLS (the 5.x SDKs' default, enableSsl(true))");
                        return;
                    }
                    next = InternalProtocolNegotiators.serverPlaintext().newHandler(grpcHandler);
                }
                case REMOTING -> {
                    refuse(ctx, in, "a RocketMQ remoting client connected to the gRPC port; remoting clients (4.x"
                        + " and the 5.x remoting client, mqadmin) connect to " + remotingHint);
                    return;
                }
                default -> {
                    refuse(ctx, in, "neither TLS nor HTTP/2 (first byte 0x" + Integer.toHexString(
                        in.getUnsignedByte(in.readerIndex())) + "): this port serves gRPC clients of RocketMQ 5.x");
                    return;
                }
            }
            ctx.pipeline().addAfter(ctx.name(), null, next);
            ctx.fireUserEventTriggered(event);
            // removing this decoder hands the bytes read so far to the handler just added
            ctx.pipeline().remove(this);
        }

        private void refuse(ChannelHandlerContext ctx, ByteBuf in, String what) {
            log.warn("gRPC port: closing the connection from {}: {}", ctx.channel().remoteAddress(), what);
            in.skipBytes(in.readableBytes());
            ctx.close();
        }
    }
}
