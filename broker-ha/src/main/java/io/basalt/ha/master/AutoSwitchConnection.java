package io.basalt.ha.master;

import java.util.List;

import io.basalt.ha.EpochFile;
import io.basalt.ha.autoswitch.AutoSwitchWire;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;

/**
 * A controller-mode slave's connection on the master, in RocketMQ 5's AutoSwitch protocol
 * ({@link AutoSwitchWire}): a RocketMQ 5.2.0 slave in controller mode, or Basalt's
 * {@link io.basalt.ha.autoswitch.AutoSwitchClient}.
 *
 * <p>States ({@link StreamConnection}): {@code HANDSHAKE} (waiting for the slave's 16 bytes) → {@code WAIT_START}
 * (epochs sent; the slave truncates and reports where it stands) → {@code TRANSFER} → {@code CLOSED}. The first
 * report is the start: 0 from a new replica means the master's oldest offset, or the start of its
 * last file when the slave set {@code isSyncFromLastFile}; anything else must lie in the master's
 * [min, max] (else refused with the reason). Frames never span two epochs (each carries its
 * epoch, the epoch's start offset and the confirmOffset) nor two files, and are at most
 * {@code haTransferBatchSize}. Acknowledgements are validated: beyond what was sent, beyond the
 * master's end, or going back closes the connection, so no peer can make a put complete early.
 * Each valid one goes to the SyncStateSet tracker (join) and the write path.
 *
 * <p>Threads: as {@link StreamConnection}'s.
 */
final class AutoSwitchConnection extends StreamConnection {
    static final String PROTOCOL = "AUTOSWITCH";

    private final InSyncReplicas inSync;

    private volatile long slaveId = -1;
    private boolean syncFromLastFile;
    private boolean asyncLearner;
    private boolean emptySlave;
    /** The master's end when it last sent data: an ack reaching it means the slave caught up. */
    private long maxAtLastTransfer;

    AutoSwitchConnection(HAService service, InSyncReplicas inSync, Channel channel) {
        super(service, channel, State.HANDSHAKE);
        this.inSync = inSync;
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    @Override
    public long brokerId() {
        return slaveId;
    }

    @Override
    public String brokerAddr() {
        return "";
    }

    boolean asyncLearner() {
        return asyncLearner;
    }

    @Override
    String describe() {
        return PROTOCOL + ", slave " + slaveId;
    }

    @Override
    void handshake(ChannelHandlerContext ctx, ByteBuf in) {
        AutoSwitchWire.SlaveMessage m = AutoSwitchWire.tryDecodeSlaveMessage(in);
        if (m == null) {
            return;
        }
        if (m.handshake() == null) {
            refuse("a report before the handshake", true);
            return;
        }
        AutoSwitchWire.SlaveHandshake h = m.handshake();
        slaveId = h.brokerId();
        syncFromLastFile = h.syncFromLastFile();
        asyncLearner = h.asyncLearner();
        List<EpochFile.Entry> entries = service.epochEntries();
        int lastEpoch = entries.isEmpty() ? 0 : AutoSwitchWire.toWireEpoch(entries.get(entries.size() - 1).epoch());
        long max = store.getMaxPhyOffset();
        ctx.writeAndFlush(AutoSwitchWire.encodeMasterHandshake(ctx.alloc(),
            new AutoSwitchWire.MasterHandshake(max, lastEpoch, entries)));
        state(State.WAIT_START, "handshake: slave " + slaveId + (syncFromLastFile ? ", syncFromLastFile" : "")
            + (asyncLearner ? ", async learner" : "") + "; sent epochs " + entries + ", max offset " + max);
    }

    @Override
    long readReport(ByteBuf in) {
        AutoSwitchWire.SlaveMessage m = AutoSwitchWire.tryDecodeSlaveMessage(in);
        if (m == null) {
            return NO_REPORT;
        }
        if (m.handshake() != null) {
            throw new AutoSwitchWire.ProtocolException("a second handshake in state " + state);
        }
        return m.reportedOffset();
    }

    @Override
    long startOffset(long reported) {
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
            return -1;
        } else {
            start = reported;
        }
        maxAtLastTransfer = start;
        return start;
    }

    /** A new replica reports 0 until its first data lands; anything else going back is a broken peer. */
    @Override
    boolean ignoresReport(long report) {
        return emptySlave && report == 0;
    }

    @Override
    void onValidAck(long ack) {
        boolean caughtUp = ack >= maxAtLastTransfer;
        inSync.syncStateSet().onAck(slaveId, ack, caughtUp, asyncLearner, inSync.confirmOffset(), inSync.currentEpochStart());
        inSync.onChange();
    }

    /** Frames never span two epochs: a frame ends where the epoch of its first byte does. */
    @Override
    long frameLimit(long offset) {
        Epoch epoch = epochOf(offset);
        if (epoch == null) {
            refuse("offset " + offset + " lies before this master's first epoch " + service.epochEntries()
                + ": it cannot be sent on the AutoSwitch wire", false);
            return -1;
        }
        return epoch.end() - offset;
    }

    @Override
    ByteBuf beginFrame(long offset, int size, long masterEnd) {
        Epoch epoch = epochOf(offset);
        maxAtLastTransfer = masterEnd;
        return AutoSwitchWire.encodeTransferHeader(channel.alloc(), new AutoSwitchWire.TransferHeader(size, offset,
            epoch.epoch(), epoch.startOffset(), inSync.frameConfirmOffset()));
    }

    @Override
    void onCaughtUp() {
        inSync.syncStateSet().onCaughtUp(slaveId);
    }

    /** An empty frame of the epoch the next byte belongs to (the first epoch before any), with the confirmOffset. */
    @Override
    ByteBuf heartbeat() {
        long next = nextTransferOffset();
        Epoch epoch = epochOf(next);
        List<EpochFile.Entry> entries = service.epochEntries();
        if (epoch == null && !entries.isEmpty()) {
            EpochFile.Entry first = entries.get(0);
            epoch = new Epoch(AutoSwitchWire.toWireEpoch(first.epoch()), first.startOffset(), Long.MAX_VALUE);
        }
        int e = epoch == null ? 0 : epoch.epoch();
        long start = epoch == null ? 0 : epoch.startOffset();
        return AutoSwitchWire.encodeTransferHeader(channel.alloc(),
            new AutoSwitchWire.TransferHeader(0, next, e, start, inSync.frameConfirmOffset()));
    }

    /** The slave leaves the SyncStateSet's tracker unless another connection of it remains. */
    @Override
    void onClosed() {
        if (slaveId >= 0 && !service.hasOtherConnection(this, slaveId)) {
            inSync.syncStateSet().onDisconnect(slaveId);
        }
        inSync.onChange();
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
}
