package io.basalt.ha.master;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.EpochFile;
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

/**
 * A controller-mode slave's connection on the master, in RocketMQ 5's AutoSwitch protocol
 * ({@link AutoSwitchWire}): a RocketMQ 5.2.0 slave in controller mode, or Basalt's
 * {@link io.basalt.ha.autoswitch.AutoSwitchClient}.
 *
 * <p>States: {@code HANDSHAKE} (waiting for the slave's 16 bytes) → {@code WAIT_REPORT} (epochs sent;
 * the slave truncates and reports where it stands) → {@code TRANSFER} → {@code CLOSED}. The first
 * report is the start: 0 from a new replica means the master's oldest offset, or the start of its
 * last file when the slave set {@code isSyncFromLastFile}; anything else must lie in the master's
 * [min, max] (else refused with the reason). Frames never span two epochs (each carries its
 * epoch, the epoch's start offset and the confirmOffset) nor two files, and are at most
 * {@code haTransferBatchSize}. Acknowledgements are validated: beyond what was sent, beyond the
 * master's end, or going back closes the connection, so no peer can make a put complete early.
 * Each valid one goes to the SyncStateSet tracker (join) and the write path.
 *
 * <p>Threads: everything but {@link #wakeup()}, {@link #close} and the getters runs on the
 * channel's event loop.
 */
final class AutoSwitchConnection extends ByteToMessageDecoder implements ReplicaConnection {
    private static final Logger LOG = LoggerFactory.getLogger(AutoSwitchConnection.class);
    static final String PROTOCOL = "AUTOSWITCH";

    enum State { HANDSHAKE, WAIT_REPORT, TRANSFER, CLOSED }

    private final HAService service;
    private final InSyncReplicas inSync;
    private final MessageStore store;
    private final Channel channel;
    private final String remote;
    private final int batchSize;
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();

    private volatile State state = State.HANDSHAKE;
    private volatile long ackOffset = -1;
    private volatile long slaveId = -1;
    private boolean syncFromLastFile;
    private boolean asyncLearner;
    private boolean emptySlave;
    private long nextTransferOffset;
    /** The master's end when it last sent data: an ack reaching it means the slave caught up. */
    private long maxAtLastTransfer;

    AutoSwitchConnection(HAService service, InSyncReplicas inSync, Channel channel) {
        this.service = service;
        this.inSync = inSync;
        this.store = service.store();
        this.channel = channel;
        this.remote = String.valueOf(channel.remoteAddress());
        this.batchSize = service.config().haTransferBatchSize();
    }

    @Override
    public String protocol() {
        return PROTOCOL;
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
    public long brokerId() {
        return slaveId;
    }

    @Override
    public String brokerAddr() {
        return "";
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    boolean asyncLearner() {
        return asyncLearner;
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

    private void state(State next, String reason) {
        LOG.info("HA connection {} (AUTOSWITCH, slave {}): {} -> {} ({})", remote, slaveId, state, next, reason);
        state = next;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            while (state != State.CLOSED) {
                AutoSwitchWire.SlaveMessage m = AutoSwitchWire.tryDecodeSlaveMessage(in);
                if (m == null) {
                    return;
                }
                if (m.handshake() != null) {
                    onHandshake(ctx, m.handshake());
                } else if (state == State.WAIT_REPORT) {
                    onFirstReport(m.reportedOffset());
                } else if (state == State.TRANSFER) {
                    onReport(m.reportedOffset());
                } else {
                    refuse("a report before the handshake", true);
                }
            }
            in.skipBytes(in.readableBytes());
        } catch (AutoSwitchWire.ProtocolException e) {
            in.skipBytes(in.readableBytes());
            refuse(e.getMessage(), true);
        }
    }

    private void onHandshake(ChannelHandlerContext ctx, AutoSwitchWire.SlaveHandshake h) {
        if (state != State.HANDSHAKE) {
            refuse("a second handshake in state " + state, true);
            return;
        }
        slaveId = h.brokerId();
        syncFromLastFile = h.syncFromLastFile();
        asyncLearner = h.asyncLearner();
        List<EpochFile.Entry> entries = service.epochEntries();
        int lastEpoch = entries.isEmpty() ? 0 : AutoSwitchWire.toWireEpoch(entries.get(entries.size() - 1).epoch());
        long max = store.getMaxPhyOffset();
        ctx.writeAndFlush(AutoSwitchWire.encodeMasterHandshake(ctx.alloc(),
            new AutoSwitchWire.MasterHandshake(max, lastEpoch, entries)));
        state(State.WAIT_REPORT, "handshake: slave " + slaveId + (syncFromLastFile ? ", syncFromLastFile" : "")
            + (asyncLearner ? ", async learner" : "") + "; sent epochs " + entries + ", max offset " + max);
    }

    private void onFirstReport(long reported) {
        long min = store.getMinPhyOffset();
        long max = store.getMaxPhyOffset();
        long start;
        if (reported == 0) {
            emptySlave = true;
            long fileSize = store.replicatedLog().fileSize();
            start = syncFromLastFile ? Math.max(min, max - max % fileSize) : min;
        } else if (reported < min || reported > max) {
            refuse("slave " + slaveId + " stands at offset " + reported + ", not held here [" + min + ", " + max + "]"
                + (reported > max ? ": its log is longer than this master's (start it empty, or let the controller"
                + " elect the replica with the longest log)" : ""), true);
            return;
        } else {
            start = reported;
        }
        nextTransferOffset = start;
        ackOffset = start;
        maxAtLastTransfer = start;
        state(State.TRANSFER, "slave reported " + reported + ", streaming from " + start);
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
            // a new replica reports 0 until its first data lands; anything else going back is a broken peer
            if (!(emptySlave && ack == 0)) {
                refuse("acknowledged offset " + ack + " went back from " + ackOffset, true);
            }
        } else {
            ackOffset = ack;
            onValidAck(ack);
        }
    }

    private void onValidAck(long ack) {
        boolean caughtUp = ack >= maxAtLastTransfer;
        inSync.syncStateSet().onAck(slaveId, ack, caughtUp, asyncLearner, inSync.confirmOffset(), inSync.currentEpochStart());
        inSync.onChange();
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
                    inSync.syncStateSet().onCaughtUp(slaveId);
                    break;
                }
                Epoch epoch = epochOf(nextTransferOffset);
                if (epoch == null) {
                    refuse("offset " + nextTransferOffset + " lies before this master's first epoch " + service.epochEntries()
                        + ": it cannot be sent on the AutoSwitch wire", false);
                    break;
                }
                SelectedBuffer selected = store.replicatedLog().select(nextTransferOffset);
                if (selected == null) {
                    if (nextTransferOffset < store.getMinPhyOffset()) {
                        refuse("offset " + nextTransferOffset + " was deleted before the slave got it", false);
                    }
                    break;
                }
                int size = (int) Math.min(Math.min(selected.size(), batchSize), epoch.end() - nextTransferOffset);
                if (size <= 0) {
                    selected.release();
                    break;
                }
                ByteBuf header = AutoSwitchWire.encodeTransferHeader(channel.alloc(), new AutoSwitchWire.TransferHeader(size,
                    nextTransferOffset, epoch.epoch(), epoch.startOffset(), inSync.frameConfirmOffset()));
                ByteBuf body = Unpooled.wrappedBuffer(selected.buffer().slice(0, size));
                channel.write(header);
                channel.write(body).addListener(f -> selected.release());
                nextTransferOffset += size;
                maxAtLastTransfer = max;
                wrote = true;
            }
        } catch (AutoSwitchWire.ProtocolException e) {
            refuse(e.getMessage(), false);
        }
        if (wrote) {
            channel.flush();
        }
    }

    private record Epoch(int epoch, long startOffset, long end) {
    }

    /** The epoch holding the byte at {@code offset} (the newest one starting at or before it), with its end. */
    private Epoch epochOf(long offset) {
        List<EpochFile.Entry> entries = service.epochEntries();
        for (int i = entries.size() - 1; i >= 0; i--) {
            EpochFile.Entry e = entries.get(i);
            if (e.startOffset() <= offset) {
                long end = i + 1 < entries.size() ? entries.get(i + 1).startOffset() : Long.MAX_VALUE;
                return new Epoch(AutoSwitchWire.toWireEpoch(e.epoch()), e.startOffset(), end);
            }
        }
        return null;
    }

    private void heartbeat(ChannelHandlerContext ctx) {
        Epoch epoch = epochOf(nextTransferOffset);
        List<EpochFile.Entry> entries = service.epochEntries();
        if (epoch == null && !entries.isEmpty()) {
            EpochFile.Entry first = entries.get(0);
            epoch = new Epoch(AutoSwitchWire.toWireEpoch(first.epoch()), first.startOffset(), Long.MAX_VALUE);
        }
        int e = epoch == null ? 0 : epoch.epoch();
        long start = epoch == null ? 0 : epoch.startOffset();
        ctx.writeAndFlush(AutoSwitchWire.encodeTransferHeader(ctx.alloc(),
            new AutoSwitchWire.TransferHeader(0, nextTransferOffset, e, start, inSync.frameConfirmOffset())));
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
                    heartbeat(ctx);
                } catch (AutoSwitchWire.ProtocolException e) {
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

    private void refuse(String reason, boolean slaveBrokeProtocol) {
        if (state == State.CLOSED) {
            return;
        }
        if (slaveBrokeProtocol) {
            LOG.error("HA connection {} (AUTOSWITCH, slave {}) refused: {}", remote, slaveId, reason);
        }
        state(State.CLOSED, reason);
        leave();
        channel.close();
    }

    private void leave() {
        service.unregister(this);
        if (slaveId >= 0 && !service.hasOtherConnection(this, slaveId)) {
            inSync.syncStateSet().onDisconnect(slaveId);
        }
        inSync.onChange();
    }
}
