package io.basalt.store.recovery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RocketMQ's {@code checkpoint} file (4 KiB) in the store root, extended by Basalt with a byte-offset
 * recovery point. The first 40 bytes are RocketMQ 5.2.0's layout, so RocketMQ tools and brokers
 * read it as before:
 *
 * <pre>
 *  pos  size  field
 *    0     8  physicMsgTimestamp    store time of the last flushed CommitLog record
 *    8     8  logicsMsgTimestamp    store time of the last flushed ConsumeQueue entry
 *   16     8  indexMsgTimestamp     store time of the last flushed index entry
 *   24     8  masterFlushedOffset   (RocketMQ HA: the master's flushed offset a slave may truncate to)
 *   32     8  confirmPhyOffset      (RocketMQ controller mode: confirmed CommitLog offset)
 *  512    72  slot A  \  Basalt: sequence (8), the five fields above (40), physicRecoveryOffset (8),
 * 1024    72  slot B  /  recordCrcFromOffset (8), magic "BSCK" (4), CRC32C of the slot's first 68 bytes (4)
 * </pre>
 *
 * <p>{@code recordCrcFromOffset} is where the store began appending records with the record CRC
 * property (every record from there carries it), so recovery requires it there; -1: none must.
 *
 * <p>Why a separate recovery offset (crash recovery that rescans from a timestamp and
 * takes hours, docs/pain-points.md#pp-5): {@code physicRecoveryOffset} is a CommitLog byte offset at a record boundary below
 * which every record is durable; crash recovery starts scanning at the file that holds it. It is
 * not stored in masterFlushedOffset because that field already means something to RocketMQ's HA.
 *
 * <p>Torn writes: each {@link #flush()} writes the whole 4 KiB image and forces it. The two slots
 * live in different 512-byte sectors and are written alternately, so a torn write can spoil at
 * most the slot being written; {@link #open} picks the valid slot with the higher sequence. With no
 * valid slot (a RocketMQ-written or fully torn file), or when the RocketMQ fields no longer match the
 * slot (RocketMQ ran on the store since), the RocketMQ fields are used and the recovery offset is
 * unknown (-1), which makes recovery fall back to timestamps. Start-up never fails on it.
 *
 * <p>Setters may be called from any thread (volatile); {@code flush} is synchronized.
 */
public final class StoreCheckpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCheckpoint.class);

    public static final String FILE_NAME = "checkpoint";
    static final int FILE_SIZE = 4096;
    static final int SLOT_A = 512;
    static final int SLOT_B = 1024;
    static final int SLOT_LENGTH = 72;
    private static final int SLOT_MAGIC_POSITION = 64;
    private static final int SLOT_CRC_POSITION = 68;
    /** Values a slot holds after its sequence: the five RocketMQ fields, recovery offset, record CRC start. */
    private static final int SLOT_VALUES = 7;
    static final int SLOT_MAGIC = 0x4253434B; // "BSCK"

    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer image = ByteBuffer.allocate(FILE_SIZE);

    private volatile long physicMsgTimestamp;
    private volatile long logicsMsgTimestamp;
    private volatile long indexMsgTimestamp;
    private volatile long masterFlushedOffset;
    private volatile long confirmPhyOffset;
    private volatile long physicRecoveryOffset = -1;
    private volatile long recordCrcFromOffset = -1;
    private long sequence;
    private boolean closed;
    /** The values the last flush wrote, in slot order. */
    private final long[] flushed = new long[SLOT_VALUES];
    /** The values of the last write, forced or not. */
    private final long[] written = new long[SLOT_VALUES];

    private StoreCheckpoint(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Opens (or creates, with its directory) the checkpoint file and reads its values. */
    public static StoreCheckpoint open(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        boolean existed = Files.exists(file);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        StoreCheckpoint cp = new StoreCheckpoint(file, channel);
        try {
            if (existed) {
                cp.read();
            } else {
                cp.flush();
                AbortMarker.forceDirectory(file.toAbsolutePath().getParent());
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return cp;
    }

    private void read() throws IOException {
        image.clear();
        int n;
        do {
            n = channel.read(image, image.position());
        } while (n > 0 && image.hasRemaining());
        physicMsgTimestamp = image.getLong(0);
        logicsMsgTimestamp = image.getLong(8);
        indexMsgTimestamp = image.getLong(16);
        masterFlushedOffset = image.getLong(24);
        confirmPhyOffset = image.getLong(32);
        int best = -1;
        long bestSeq = -1;
        for (int slot : new int[] {SLOT_A, SLOT_B}) {
            if (slotValid(slot) && image.getLong(slot) > bestSeq) {
                best = slot;
                bestSeq = image.getLong(slot);
            }
        }
        if (best < 0) {
            LOG.warn("checkpoint {} has no valid Basalt slot (written by RocketMQ or torn); recovery offset unknown, "
                + "using timestamps physicMsgTimestamp={} logicsMsgTimestamp={}", file, physicMsgTimestamp,
                logicsMsgTimestamp);
            return;
        }
        sequence = bestSeq;
        for (int i = 0; i < 5; i++) {
            if (image.getLong(best + 8 + 8 * i) != image.getLong(8 * i)) {
                // RocketMQ (which writes only the first 40 bytes) ran on this store after Basalt, or a
                // page write was torn: the offset in the slot may no longer describe the log.
                LOG.warn("checkpoint {}: RocketMQ fields differ from Basalt's last write; recovery offset unknown, "
                    + "using timestamps physicMsgTimestamp={} logicsMsgTimestamp={}", file, physicMsgTimestamp,
                    logicsMsgTimestamp);
                return;
            }
        }
        for (int i = 0; i < SLOT_VALUES; i++) {
            flushed[i] = image.getLong(best + 8 + 8 * i);
            written[i] = flushed[i];
        }
        physicMsgTimestamp = image.getLong(best + 8);
        logicsMsgTimestamp = image.getLong(best + 16);
        indexMsgTimestamp = image.getLong(best + 24);
        masterFlushedOffset = image.getLong(best + 32);
        confirmPhyOffset = image.getLong(best + 40);
        physicRecoveryOffset = image.getLong(best + 48);
        recordCrcFromOffset = image.getLong(best + 56);
        LOG.info("checkpoint {}: physicMsgTimestamp={} logicsMsgTimestamp={} indexMsgTimestamp={} "
            + "masterFlushedOffset={} confirmPhyOffset={} physicRecoveryOffset={} recordCrcFromOffset={}", file,
            physicMsgTimestamp, logicsMsgTimestamp, indexMsgTimestamp, masterFlushedOffset, confirmPhyOffset,
            physicRecoveryOffset, recordCrcFromOffset);
    }

    private boolean slotValid(int slot) {
        return image.getInt(slot + SLOT_MAGIC_POSITION) == SLOT_MAGIC
            && image.getInt(slot + SLOT_CRC_POSITION) == slotCrc(slot);
    }

    private int slotCrc(int slot) {
        CRC32C crc = new CRC32C();
        crc.update(image.duplicate().position(slot).limit(slot + SLOT_CRC_POSITION));
        return (int) crc.getValue();
    }

    /** Writes the current values into the next slot and the RocketMQ fields, then forces the file. */
    public synchronized void flush() throws IOException {
        write(true);
    }

    /**
     * Writes the values into the next slot without forcing, when one changed since the last write: a
     * process crash keeps the page cache, so the next recovery knows the durable point of the last
     * flush, not of the last forced checkpoint; a power loss leaves an older, still safe point.
     * Returns whether it wrote.
     */
    public synchronized boolean writeIfChanged() throws IOException {
        if (physicMsgTimestamp == written[0] && logicsMsgTimestamp == written[1] && indexMsgTimestamp == written[2]
            && masterFlushedOffset == written[3] && confirmPhyOffset == written[4]
            && physicRecoveryOffset == written[5] && recordCrcFromOffset == written[6]) {
            return false;
        }
        write(false);
        return true;
    }

    private void write(boolean force) throws IOException {
        if (closed) {
            throw new IllegalStateException("checkpoint " + file + " is closed");
        }
        image.putLong(0, physicMsgTimestamp);
        image.putLong(8, logicsMsgTimestamp);
        image.putLong(16, indexMsgTimestamp);
        image.putLong(24, masterFlushedOffset);
        image.putLong(32, confirmPhyOffset);
        sequence++;
        int slot = (sequence & 1) == 0 ? SLOT_A : SLOT_B;
        image.putLong(slot, sequence);
        image.putLong(slot + 8, image.getLong(0));
        image.putLong(slot + 16, image.getLong(8));
        image.putLong(slot + 24, image.getLong(16));
        image.putLong(slot + 32, image.getLong(24));
        image.putLong(slot + 40, image.getLong(32));
        image.putLong(slot + 48, physicRecoveryOffset);
        image.putLong(slot + 56, recordCrcFromOffset);
        image.putInt(slot + SLOT_MAGIC_POSITION, SLOT_MAGIC);
        image.putInt(slot + SLOT_CRC_POSITION, slotCrc(slot));
        ByteBuffer out = image.duplicate().clear();
        while (out.hasRemaining()) {
            channel.write(out, out.position());
        }
        for (int i = 0; i < SLOT_VALUES; i++) {
            written[i] = image.getLong(slot + 8 + 8 * i);
        }
        if (!force) {
            return;
        }
        channel.force(false);
        for (int i = 0; i < SLOT_VALUES; i++) {
            flushed[i] = image.getLong(slot + 8 + 8 * i);
        }
    }

    /** Flushes only if a value changed since the last flush; returns whether it flushed. */
    public synchronized boolean flushIfChanged() throws IOException {
        if (physicMsgTimestamp == flushed[0] && logicsMsgTimestamp == flushed[1] && indexMsgTimestamp == flushed[2]
            && masterFlushedOffset == flushed[3] && confirmPhyOffset == flushed[4]
            && physicRecoveryOffset == flushed[5] && recordCrcFromOffset == flushed[6]) {
            return false;
        }
        flush();
        return true;
    }

    /**
     * Flushes and closes the file; idempotent. A failed final flush is logged, not thrown: the file
     * then keeps the previous flush, an older and therefore still safe recovery point.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            flush();
        } catch (IOException e) {
            LOG.error("checkpoint {}: final flush failed, the previous checkpoint stays in force: {}", file,
                e.toString());
        } finally {
            closed = true;
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("checkpoint {}: close failed: {}", file, e.toString());
            }
        }
    }

    public Path file() {
        return file;
    }

    public long physicMsgTimestamp() {
        return physicMsgTimestamp;
    }

    public void physicMsgTimestamp(long millis) {
        this.physicMsgTimestamp = millis;
    }

    public long logicsMsgTimestamp() {
        return logicsMsgTimestamp;
    }

    public void logicsMsgTimestamp(long millis) {
        this.logicsMsgTimestamp = millis;
    }

    public long indexMsgTimestamp() {
        return indexMsgTimestamp;
    }

    public void indexMsgTimestamp(long millis) {
        this.indexMsgTimestamp = millis;
    }

    public long masterFlushedOffset() {
        return masterFlushedOffset;
    }

    public void masterFlushedOffset(long offset) {
        this.masterFlushedOffset = offset;
    }

    public long confirmPhyOffset() {
        return confirmPhyOffset;
    }

    public void confirmPhyOffset(long offset) {
        this.confirmPhyOffset = offset;
    }

    /** CommitLog offset (a record boundary) below which every record is durable; -1 when unknown. */
    public long physicRecoveryOffset() {
        return physicRecoveryOffset;
    }

    /**
     * Sets the recovery point. Call it only with an offset that force() has made durable (the
     * flushed offset after a flush), so it is a record boundary; persisted by the next {@link #flush()}.
     */
    public void physicRecoveryOffset(long offset) {
        this.physicRecoveryOffset = offset;
    }

    /** CommitLog offset from which every record carries the record CRC property; -1 when unknown. */
    public long recordCrcFromOffset() {
        return recordCrcFromOffset;
    }

    /** Set by recovery: where records with the record CRC begin, or -1 when the store appends without it. */
    public void recordCrcFromOffset(long offset) {
        this.recordCrcFromOffset = offset;
    }

    /**
     * RocketMQ's rule for the timestamp a crash recovery may trust: the smaller of the CommitLog and
     * ConsumeQueue timestamps, less 3 s of margin, never negative.
     */
    public long minTimestamp() {
        long min = Math.min(physicMsgTimestamp, logicsMsgTimestamp);
        return Math.max(0, min - 3000);
    }
}
