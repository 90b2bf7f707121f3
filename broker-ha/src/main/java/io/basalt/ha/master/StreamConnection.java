package io.basalt.ha.master;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.HAWire;
import io.basalt.ha.autoswitch.AutoSwitchWire;
import io.basalt.store.MessageStore;
import io.basalt.store.SelectedBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.Future;

/**
 * What every replication protocol shares on the master once its slave is connected: a handshake (or none),
 * the slave's start offset, then a stream of data frames (raw CommitLog bytes never spanning two files, at most
 * haTransferBatchSize) answered by offset reports. Subclasses bring the protocol's handshake, report and frame
 * formats ({@link #handshake}, {@link #readReport}, {@link #beginFrame}), decide the start offset
 * ({@link #startOffset}) and say what an acknowledgement means to them ({@link #onValidAck}). States:
 * {@code HANDSHAKE} → {@code WAIT_START} → {@code TRANSFER} → {@code CLOSED}; every transition goes through
 * {@link #state} and is logged with its reason.
 *
 * <p>Reports are validated, unlike RocketMQ's (apache/rocketmq#3015): an acknowledgement beyond what was sent,
 * beyond the master's end or below an earlier one closes the connection, so no peer can make a put complete early.
 *
 * <p>Data goes out straight from the mapped CommitLog files: each frame's body is the {@link SelectedBuffer}'s view
 * wrapped (not copied) in a ByteBuf, released when the socket write completes. Frames are written while the channel
 * is writable; the store's append listener and writability changes restart the pump. Idle writes send a heartbeat;
 * no read for haHousekeepingInterval closes the connection.
 *
 * <p>Threads: everything but {@link #wakeup()}, {@link #close} and the status getters runs on the channel's event
 * loop.
 */
abstract class StreamConnection extends ByteToMessageDecoder implements ReplicaConnection {
    private static final Logger LOG = LoggerFactory.getLogger(StreamConnection.class);
    /** {@link #readReport}: no complete report yet. */
    static final long NO_REPORT = -1;

    enum State { HANDSHAKE, WAIT_START, TRANSFER, CLOSED }

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

    // ---- what a protocol brings ----

    /** Reads the protocol's handshake (state HANDSHAKE); leaves the bytes when incomplete. */
    abstract void handshake(ChannelHandlerContext ctx, ByteBuf in);

    /**
     * Where streaming starts for the slave's first report {@code requested}, or -1 after refusing it. The result must
     * lie in the master's [min, max].
     */
    abstract long startOffset(long requested);

    /**
     * Consumes the slave's next offset report, or returns {@link #NO_REPORT} while it is incomplete. By default an
     * 8-byte offset (RocketMQ's classic wire, Basalt's).
     *
     * @throws HAWire.HAProtocolException a report no slave of this protocol sends
     */
    long readReport(ByteBuf in) {
        if (in.readableBytes() < HAWire.REPORT_LENGTH) {
            return NO_REPORT;
        }
        long offset = in.readLong();
        if (offset < 0) {
            throw new HAWire.HAProtocolException("slave reported the negative offset " + offset);
        }
        return offset;
    }

    /** Whether a report below the last acknowledgement is harmless (and ignored) rather than a broken peer. */
    boolean ignoresReport(long report) {
        return false;
    }

    /** The slave acknowledged everything below {@code ack} (its start offset, then each valid report). */
    void onValidAck(long ack) {
        service.onAck();
    }

    /**
     * How many bytes a frame starting at {@code offset} may carry, besides the file and batch limits: by default no
     * further limit; -1 after refusing to send from there.
     */
    long frameLimit(long offset) {
        return Long.MAX_VALUE;
    }

    /**
     * Starts a frame of {@code size} bytes at {@code offset}, sent while the master's log ends at {@code masterEnd}:
     * returns its header (by default the 12-byte offset and size).
     */
    ByteBuf beginFrame(long offset, int size, long masterEnd) {
        return channel.alloc().buffer(HAWire.DATA_HEADER_LENGTH).writeLong(offset).writeInt(size);
    }

    /** The slave has everything the master holds now. */
    void onCaughtUp() {
    }

    /** What the master sends when it has written nothing for a while: by default an empty frame. */
    ByteBuf heartbeat() {
        return beginFrame(nextTransferOffset, 0, store.getMaxPhyOffset());
    }

    /** The connection closed (once): besides leaving the service's connections, what the protocol undoes. */
    void onClosed() {
    }

    /** The connection as the log names it, after its remote address. */
    String describe() {
        return protocol();
    }

    // ---- status ----

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

    /** The next offset the master sends (event loop). */
    final long nextTransferOffset() {
        return nextTransferOffset;
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
    public Future<?> close(String reason) {
        return channel.eventLoop().submit(() -> refuse(reason, false));
    }

    final void state(State next, String reason) {
        LOG.info("HA connection {} ({}): {} -> {} ({})", remote, describe(), state, next, reason);
        state = next;
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            switch (state) {
                case HANDSHAKE -> handshake(ctx, in);
                case WAIT_START -> {
                    long requested = readReport(in);
                    if (requested != NO_REPORT) {
                        onRequest(requested);
                    }
                }
                case TRANSFER -> {
                    long ack;
                    while (state == State.TRANSFER && (ack = readReport(in)) != NO_REPORT) {
                        onReport(ack);
                    }
                }
                case CLOSED -> in.skipBytes(in.readableBytes());
            }
        } catch (HAWire.HAProtocolException | AutoSwitchWire.ProtocolException e) {
            in.skipBytes(in.readableBytes());
            refuse(e.getMessage(), true);
        }
    }

    private void onRequest(long requested) {
        long start = startOffset(requested);
        if (start < 0 || state == State.CLOSED) {
            return;
        }
        nextTransferOffset = start;
        ackOffset = start;
        state(State.TRANSFER, "slave asked for offset " + requested + ", streaming from " + start);
        onValidAck(start);
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
            onValidAck(ack);
        }
    }

    /** Writes frames while the channel accepts them and there is data. Event loop only. */
    private void pump() {
        if (state != State.TRANSFER) {
            return;
        }
        boolean wrote = false;
        try {
            while (channel.isWritable() && state == State.TRANSFER) {
                long max = store.getMaxPhyOffset();
                if (nextTransferOffset >= max) {
                    onCaughtUp();
                    break;
                }
                long limit = frameLimit(nextTransferOffset);
                if (limit < 0) {
                    break;
                }
                SelectedBuffer selected = store.replicatedLog().select(nextTransferOffset);
                if (selected == null) {
                    if (nextTransferOffset < store.getMinPhyOffset()) {
                        refuse("offset " + nextTransferOffset + " was deleted before the slave got it", false);
                    }
                    break;
                }
                int size = (int) Math.min(Math.min(selected.size(), batchSize), limit);
                if (size <= 0) {
                    selected.release();
                    break;
                }
                ByteBuf header;
                try {
                    header = beginFrame(nextTransferOffset, size, max);
                } catch (RuntimeException e) {
                    selected.release();
                    throw e;
                }
                ByteBuf body = Unpooled.wrappedBuffer(selected.buffer().slice(0, size));
                channel.write(header);
                channel.write(body).addListener(f -> selected.release());
                nextTransferOffset += size;
                wrote = true;
            }
        } catch (HAWire.HAProtocolException | AutoSwitchWire.ProtocolException e) {
            refuse(e.getMessage(), false);
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
                refuse("nothing from the slave for " + service.config().haHousekeepingInterval() + " ms", false);
            } else if (idle.state() == IdleState.WRITER_IDLE && state == State.TRANSFER) {
                try {
                    ctx.writeAndFlush(heartbeat());
                } catch (HAWire.HAProtocolException | AutoSwitchWire.ProtocolException e) {
                    refuse(e.getMessage(), false);
                }
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.CLOSED) {
            state(State.CLOSED, "connection closed by the slave or the network");
            leave();
        }
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
            LOG.error("HA connection {} ({}) refused: {}", remote, describe(), reason);
        }
        state(State.CLOSED, reason);
        leave();
        channel.close();
    }

    private void leave() {
        service.unregister(this);
        onClosed();
    }
}
