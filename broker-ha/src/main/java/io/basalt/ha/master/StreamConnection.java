package io.basalt.ha.master;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.HAWire;
import io.basalt.store.MessageStore;
import io.basalt.store.SelectedBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * The part every protocol shares once a slave asked for an offset: RocketMQ's classic stream of
 * data frames (12-byte header, raw CommitLog bytes never spanning two files, at most
 * haTransferBatchSize) answered by 8-byte offset reports. Subclasses bring the slave to
 * {@link State#WAIT_REQUEST} (Basalt after its handshake, classic at once) and decide the start
 * offset. States: {@code HANDSHAKE} → {@code WAIT_REQUEST} → {@code TRANSFER} → {@code CLOSED};
 * every transition goes through {@link #state} and is logged with its reason.
 *
 * <p>Reports are validated, unlike RocketMQ's (apache/rocketmq#3015): an acknowledgement beyond what
 * was sent, beyond the master's end or below an earlier one closes the connection, so no peer can
 * make a SYNC_MASTER acknowledge a put early.
 *
 * <p>Data goes out straight from the mapped CommitLog files: each frame's body is the
 * {@link SelectedBuffer}'s view wrapped (not copied) in a ByteBuf, released when the socket write
 * completes. Frames are written while the channel is writable; the store's append listener and
 * writability changes restart the pump. Idle writes send a heartbeat; no read for
 * haHousekeepingInterval closes the connection.
 *
 * <p>Threads: everything but {@link #wakeup()}, {@link #close} and the status getters runs on the
 * channel's event loop.
 */
abstract class StreamConnection extends ByteToMessageDecoder implements ReplicaConnection {
    private static final Logger LOG = LoggerFactory.getLogger(StreamConnection.class);

    enum State { HANDSHAKE, WAIT_REQUEST, TRANSFER, CLOSED }

    final HAService service;
    final MessageStore store;
    final Channel channel;
    final String remote;
    private final int batchSize;
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();

    volatile State state;
    private volatile long ackOffset;
    private long nextTransferOffset;

    StreamConnection(HAService service, Channel channel, State initial) {
        this.service = service;
        this.store = service.store();
        this.channel = channel;
        this.batchSize = service.config().haTransferBatchSize();
        this.remote = String.valueOf(channel.remoteAddress());
        this.state = initial;
    }

    @Override
    public boolean isTransferring() {
        return state == State.TRANSFER;
    }

    @Override
    public long ackOffset() {
        return ackOffset;
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public void wakeup() {
        if (state == State.TRANSFER && pumpScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(() -> {
                pumpScheduled.set(false);
                pump();
            });
        }
    }

    @Override
    public void close(String reason) {
        channel.eventLoop().execute(() -> refuse(reason, false));
    }

    final void state(State next, String reason) {
        LOG.info("HA connection {} ({}): {} -> {} ({})", remote, protocol(), state, next, reason);
        state = next;
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            switch (state) {
                case HANDSHAKE -> handshake(ctx, in);
                case WAIT_REQUEST -> {
                    if (in.readableBytes() >= HAWire.REPORT_LENGTH) {
                        onRequest(in.readLong());
                    }
                }
                case TRANSFER -> {
                    while (in.readableBytes() >= HAWire.REPORT_LENGTH && state == State.TRANSFER) {
                        onReport(in.readLong());
                    }
                }
                case CLOSED -> in.skipBytes(in.readableBytes());
            }
        } catch (HAWire.HAProtocolException e) {
            in.skipBytes(in.readableBytes());
            refuse(e.getMessage(), true);
        }
    }

    /** Reads the protocol's handshake (state HANDSHAKE); leaves the bytes when incomplete. */
    abstract void handshake(ChannelHandlerContext ctx, ByteBuf in);

    /**
     * Where streaming starts for a slave's first report {@code requested}, or -1 after refusing it.
     * The result must lie in the master's [min, max].
     */
    abstract long startOffset(long requested);

    /**
     * Whether a report below the last acknowledgement is harmless (and ignored) rather than a broken
     * peer; by default never.
     */
    boolean ignoresReport(long report) {
        return false;
    }

    private void onRequest(long requested) {
        long start = startOffset(requested);
        if (start < 0 || state == State.CLOSED) {
            return;
        }
        nextTransferOffset = start;
        ackOffset = start;
        state(State.TRANSFER, "slave requested offset " + requested + ", streaming from " + start);
        service.onAck();
        pump();
    }

    private void onReport(long ack) {
        long max = store.getMaxPhyOffset();
        if (ack > max) {
            refuse("acknowledged offset " + ack + " is beyond the master's end " + max, true);
        } else if (ack > nextTransferOffset) {
            refuse("acknowledged offset " + ack + " is beyond what was sent (" + nextTransferOffset + ")", true);
        } else if (ack < ackOffset) {
            if (!ignoresReport(ack)) {
                refuse("acknowledged offset " + ack + " went back from " + ackOffset, true);
            }
        } else {
            ackOffset = ack;
            service.onAck();
        }
    }

    /** Writes frames while the channel accepts them and there is data. Event loop only. */
    private void pump() {
        if (state != State.TRANSFER) {
            return;
        }
        boolean wrote = false;
        while (channel.isWritable() && state == State.TRANSFER) {
            long max = store.getMaxPhyOffset();
            if (nextTransferOffset >= max) {
                break;
            }
            SelectedBuffer selected = store.replicatedLog().select(nextTransferOffset);
            if (selected == null) {
                if (nextTransferOffset < store.getMinPhyOffset()) {
                    refuse("offset " + nextTransferOffset + " was deleted before the slave got it", false);
                }
                break;
            }
            int size = Math.min(selected.size(), batchSize);
            if (size <= 0) {
                selected.release();
                break;
            }
            ByteBuf header = channel.alloc().buffer(HAWire.DATA_HEADER_LENGTH).writeLong(nextTransferOffset).writeInt(size);
            ByteBuf body = Unpooled.wrappedBuffer(selected.buffer().slice(0, size));
            channel.write(header);
            channel.write(body).addListener(f -> selected.release());
            nextTransferOffset += size;
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            pump();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.READER_IDLE) {
                refuse("no report from the slave for " + service.config().haHousekeepingInterval() + " ms", false);
            } else if (idle.state() == IdleState.WRITER_IDLE && state == State.TRANSFER) {
                ctx.writeAndFlush(ctx.alloc().buffer(HAWire.DATA_HEADER_LENGTH).writeLong(nextTransferOffset).writeInt(0));
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.CLOSED) {
            state(State.CLOSED, "connection closed by the slave or the network");
        }
        service.unregister(this);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        refuse("I/O error: " + cause, false);
    }

    /** Closes the connection for {@code reason}; {@code slaveBrokeProtocol} logs it as an error. Event loop only. */
    final void refuse(String reason, boolean slaveBrokeProtocol) {
        if (state == State.CLOSED) {
            return;
        }
        if (slaveBrokeProtocol) {
            LOG.error("HA connection {} ({}) refused: {}", remote, protocol(), reason);
        }
        state(State.CLOSED, reason);
        service.unregister(this);
        channel.close();
    }
}
