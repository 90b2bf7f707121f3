package io.basalt.ha.autoswitch;

import java.util.ArrayList;
import java.util.List;

import io.basalt.ha.EpochFile;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * RocketMQ 5's AutoSwitch HA wire (controller mode), byte for byte: every message starts with the
 * sender's connection state as an int (HANDSHAKE 1, TRANSFER 2); all integers are big-endian.
 *
 * <pre>
 * slave → master  handshake, 16 bytes
 *      0 int   state 1
 *      4 short isSyncFromLastFile (1 = an empty slave starts at the master's last CommitLog file)
 *      6 short isAsyncLearner     (1 = never joins the SyncStateSet)
 *      8 long  slave broker id (the controller's)
 * master → slave  handshake, 20 + 12·n bytes
 *      0 int   state 1, 4 int bodySize = 12·n, 8 long master max offset, 16 int master's last epoch,
 *     20       n × (int epoch, long startOffset), oldest first
 * slave → master  report, 12 bytes: int state 2, long slave max offset (0 from an empty slave with no
 *                 epochs: "start where you like"); the first one after the handshake is the start point
 * master → slave  transfer, 36 + bodySize bytes
 *      0 int   state 2, 4 int bodySize (0 = heartbeat), 8 long offset of the body's first byte,
 *     16 int   epoch of those bytes, 20 long that epoch's start offset, 28 long master's confirmOffset,
 *     36       body: raw CommitLog bytes, never spanning two epochs or two files
 * </pre>
 *
 * Epochs are ints on this wire; {@link EpochFile} holds them as longs, so an epoch beyond
 * {@link Integer#MAX_VALUE} cannot be sent ({@link #toWireEpoch}).
 */
public final class AutoSwitchWire {
    /** RocketMQ's {@code HAConnectionState.HANDSHAKE.ordinal()}. */
    public static final int STATE_HANDSHAKE = 1;
    /** RocketMQ's {@code HAConnectionState.TRANSFER.ordinal()}. */
    public static final int STATE_TRANSFER = 2;
    public static final int SLAVE_HANDSHAKE_LENGTH = 16;
    public static final int SLAVE_REPORT_LENGTH = 12;
    public static final int MASTER_HANDSHAKE_HEADER_LENGTH = 20;
    public static final int EPOCH_ENTRY_LENGTH = 12;
    public static final int TRANSFER_HEADER_LENGTH = 36;
    /** RocketMQ's master sends at most 1000 entries (its handshake buffer); more is a broken peer. */
    public static final int MAX_EPOCH_ENTRIES = 1000;

    private AutoSwitchWire() {
    }

    public record SlaveHandshake(boolean syncFromLastFile, boolean asyncLearner, long brokerId) {
    }

    public record MasterHandshake(long masterMaxOffset, int lastEpoch, List<EpochFile.Entry> epochs) {
    }

    /** A transfer frame's header; its body follows on the wire. */
    public record TransferHeader(int bodySize, long offset, int epoch, long epochStartOffset, long confirmOffset) {
    }

    /** One message a slave sends: a handshake or a report (exactly one of the two is non-null). */
    public record SlaveMessage(SlaveHandshake handshake, Long reportedOffset) {
    }

    /** An epoch as the wire carries it; refuses one that does not fit an int. */
    public static int toWireEpoch(long epoch) {
        if (epoch < 0 || epoch > Integer.MAX_VALUE) {
            throw new ProtocolException("epoch " + epoch + " does not fit the AutoSwitch wire's int");
        }
        return (int) epoch;
    }

    public static ByteBuf encodeSlaveHandshake(ByteBufAllocator alloc, SlaveHandshake h) {
        return alloc.buffer(SLAVE_HANDSHAKE_LENGTH).writeInt(STATE_HANDSHAKE).writeShort(h.syncFromLastFile() ? 1 : 0)
            .writeShort(h.asyncLearner() ? 1 : 0).writeLong(h.brokerId());
    }

    public static ByteBuf encodeSlaveReport(ByteBufAllocator alloc, long maxOffset) {
        return alloc.buffer(SLAVE_REPORT_LENGTH).writeInt(STATE_TRANSFER).writeLong(maxOffset);
    }

    /**
     * Reads one slave message if it is complete (reader index unchanged and null otherwise); throws
     * {@link ProtocolException} on an unknown state or a negative offset.
     */
    public static SlaveMessage tryDecodeSlaveMessage(ByteBuf in) {
        if (in.readableBytes() < 4) {
            return null;
        }
        int at = in.readerIndex();
        int state = in.getInt(at);
        switch (state) {
            case STATE_HANDSHAKE -> {
                if (in.readableBytes() < SLAVE_HANDSHAKE_LENGTH) {
                    return null;
                }
                short fromLastFile = in.getShort(at + 4);
                short learner = in.getShort(at + 6);
                long brokerId = in.getLong(at + 8);
                in.skipBytes(SLAVE_HANDSHAKE_LENGTH);
                return new SlaveMessage(new SlaveHandshake(fromLastFile == 1, learner == 1, brokerId), null);
            }
            case STATE_TRANSFER -> {
                if (in.readableBytes() < SLAVE_REPORT_LENGTH) {
                    return null;
                }
                long offset = in.getLong(at + 4);
                if (offset < 0) {
                    throw new ProtocolException("slave reported the negative offset " + offset);
                }
                in.skipBytes(SLAVE_REPORT_LENGTH);
                return new SlaveMessage(null, offset);
            }
            default -> throw new ProtocolException("slave message with unknown state " + state + " (not RocketMQ's AutoSwitch HA"
                + " protocol, the only one a controller-mode master speaks: a classic or Basalt-wire slave cannot follow it)");
        }
    }

    public static ByteBuf encodeMasterHandshake(ByteBufAllocator alloc, MasterHandshake h) {
        int n = h.epochs().size();
        ByteBuf out = alloc.buffer(MASTER_HANDSHAKE_HEADER_LENGTH + EPOCH_ENTRY_LENGTH * n);
        out.writeInt(STATE_HANDSHAKE).writeInt(EPOCH_ENTRY_LENGTH * n).writeLong(h.masterMaxOffset()).writeInt(h.lastEpoch());
        for (EpochFile.Entry e : h.epochs()) {
            out.writeInt(toWireEpoch(e.epoch())).writeLong(e.startOffset());
        }
        return out;
    }

    /** The 36-byte header of a transfer frame (the body, if any, is written after it). */
    public static ByteBuf encodeTransferHeader(ByteBufAllocator alloc, TransferHeader h) {
        return alloc.buffer(TRANSFER_HEADER_LENGTH).writeInt(STATE_TRANSFER).writeInt(h.bodySize()).writeLong(h.offset())
            .writeInt(h.epoch()).writeLong(h.epochStartOffset()).writeLong(h.confirmOffset());
    }

    /** The state of the master message starting at the reader index, or -1 with fewer than 4 bytes. */
    public static int peekState(ByteBuf in) {
        return in.readableBytes() < 4 ? -1 : in.getInt(in.readerIndex());
    }

    /**
     * Reads a master handshake if it is complete (reader index unchanged and null otherwise); throws
     * {@link ProtocolException} on a bad one.
     */
    public static MasterHandshake tryDecodeMasterHandshake(ByteBuf in) {
        if (in.readableBytes() < MASTER_HANDSHAKE_HEADER_LENGTH) {
            return null;
        }
        int at = in.readerIndex();
        int state = in.getInt(at);
        if (state != STATE_HANDSHAKE) {
            throw new ProtocolException("expected the master's handshake (state 1), got state " + state);
        }
        int bodySize = in.getInt(at + 4);
        if (bodySize < 0 || bodySize % EPOCH_ENTRY_LENGTH != 0 || bodySize / EPOCH_ENTRY_LENGTH > MAX_EPOCH_ENTRIES) {
            throw new ProtocolException("master handshake with an epoch body of " + bodySize + " bytes");
        }
        if (in.readableBytes() < MASTER_HANDSHAKE_HEADER_LENGTH + bodySize) {
            return null;
        }
        long max = in.getLong(at + 8);
        int lastEpoch = in.getInt(at + 16);
        in.skipBytes(MASTER_HANDSHAKE_HEADER_LENGTH);
        int n = bodySize / EPOCH_ENTRY_LENGTH;
        List<EpochFile.Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new EpochFile.Entry(in.readInt(), in.readLong()));
        }
        return new MasterHandshake(max, lastEpoch, List.copyOf(entries));
    }

    /**
     * Reads a transfer header if the whole frame (header and body) is there, leaving the reader index
     * at the body; null (nothing read) otherwise. Throws {@link ProtocolException} on a bad header.
     *
     * @param maxBodySize the largest body accepted (a CommitLog file)
     */
    public static TransferHeader tryDecodeTransferHeader(ByteBuf in, int maxBodySize) {
        if (in.readableBytes() < TRANSFER_HEADER_LENGTH) {
            return null;
        }
        int at = in.readerIndex();
        int state = in.getInt(at);
        if (state != STATE_TRANSFER) {
            throw new ProtocolException("expected a transfer frame (state 2), got state " + state);
        }
        int bodySize = in.getInt(at + 4);
        if (bodySize < 0 || bodySize > maxBodySize) {
            throw new ProtocolException("transfer frame body of " + bodySize + " bytes");
        }
        if (in.readableBytes() < TRANSFER_HEADER_LENGTH + bodySize) {
            return null;
        }
        TransferHeader h = new TransferHeader(bodySize, in.getLong(at + 8), in.getInt(at + 16), in.getLong(at + 20),
            in.getLong(at + 28));
        in.skipBytes(TRANSFER_HEADER_LENGTH);
        return h;
    }

    /** A peer broke the AutoSwitch protocol; the connection is closed. */
    public static final class ProtocolException extends RuntimeException {
        public ProtocolException(String message) {
            super(message);
        }
    }
}
