package io.basalt.ha.master;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.HAWire;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * The first handler of every connection to the HA port: it reads nothing itself, but offers the
 * connection's first bytes to an ordered list of {@link HAProtocol}s and replaces itself with the
 * handler of the first that answers {@link HAProtocol.Match#YES}; the bytes it holds go on to that
 * handler. A protocol answering {@link HAProtocol.Match#NEED_MORE} makes it wait for more bytes
 * before the protocols after it are asked, so the order is also the precedence:
 *
 * <ol>
 * <li>{@link #BASALT}: Basalt's HELLO, whose first int is {@link HAWire#MAGIC}. As the high half of a
 *     classic 8-byte offset report that int would be an offset above 2^62, so it never clashes.</li>
 * <li>(RocketMQ's AutoSwitch handshake, first int 1, is the place for a third protocol: it goes
 *     here, before the classic fallback, and only where RocketMQ slaves speak it — controller mode —
 *     because a classic report of an offset in [2^32, 2^33) also starts with the int 1.)</li>
 * <li>{@link #CLASSIC}: anything else is RocketMQ's classic protocol, whose first message is a bare
 *     8-byte offset report.</li>
 * </ol>
 *
 * <p>Threads: one instance per connection, on its event loop.
 */
final class HAProtocolDispatcher extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(HAProtocolDispatcher.class);
    /** No protocol needs more than this to tell; a connection still undecided beyond it is closed. */
    static final int MAX_DECISION_BYTES = 64;

    /** Basalt's own wire ({@link HAWire}): HELLO/WELCOME with epochs and peer identity, then the stream. */
    static final HAProtocol BASALT = new HAProtocol() {
        @Override
        public String name() {
            return "BASALT";
        }

        @Override
        public Match match(ByteBuf in) {
            if (in.readableBytes() < 4) {
                return Match.NEED_MORE;
            }
            return in.getInt(in.readerIndex()) == HAWire.MAGIC ? Match.YES : Match.NO;
        }

        @Override
        public ReplicaConnection open(HAService service, io.netty.channel.Channel channel) {
            return new HAConnection(service, channel);
        }
    };

    /** RocketMQ's classic protocol (8-byte reports, 12-byte-header frames); it takes whatever is left. */
    static final HAProtocol CLASSIC = new HAProtocol() {
        @Override
        public String name() {
            return ClassicConnection.PROTOCOL;
        }

        @Override
        public Match match(ByteBuf in) {
            return Match.YES;
        }

        @Override
        public ReplicaConnection open(HAService service, io.netty.channel.Channel channel) {
            return new ClassicConnection(service, channel);
        }
    };

    private final HAService service;
    private final List<HAProtocol> protocols;

    HAProtocolDispatcher(HAService service, List<HAProtocol> protocols) {
        this.service = service;
        this.protocols = List.copyOf(protocols);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() >= 4 && in.getInt(in.readerIndex()) == io.basalt.ha.HAAuth.MAGIC) {
            LOG.error("HA connection {} refused: the slave proves an haAuthSecret, but this master has none set (set the"
                + " same haAuthSecret on every broker of the group)", ctx.channel().remoteAddress());
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        HAProtocol chosen = choose(protocols, in);
        if (chosen == null) {
            if (in.readableBytes() > MAX_DECISION_BYTES) {
                LOG.error("HA connection {} refused: no replication protocol matches its first {} bytes",
                    ctx.channel().remoteAddress(), in.readableBytes());
                in.skipBytes(in.readableBytes());
                ctx.close();
            }
            return;
        }
        ReplicaConnection connection = chosen.open(service, ctx.channel());
        if (!service.register(connection)) {
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        LOG.info("HA connection from slave {} speaks the {} protocol", ctx.channel().remoteAddress(), chosen.name());
        ctx.pipeline().addAfter(ctx.name(), chosen.name(), connection);
        // removing a ByteToMessageDecoder hands the bytes it holds to the next handler
        ctx.pipeline().remove(this);
    }

    /** The first protocol claiming {@code in}, or null while one before it needs more bytes (or none claims it). */
    static HAProtocol choose(List<HAProtocol> protocols, ByteBuf in) {
        for (HAProtocol p : protocols) {
            switch (p.match(in)) {
                case YES -> {
                    return p;
                }
                case NEED_MORE -> {
                    return null;
                }
                case NO -> {
                }
            }
        }
        return null;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.READER_IDLE) {
                LOG.warn("HA connection {} closed: nothing received for {} ms", ctx.channel().remoteAddress(),
                    service.config().haHousekeepingInterval());
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("HA connection {} closed before its protocol was known: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
