package io.basalt.store.recovery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.commitlog.RecordFormat;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;

/**
 * Finds the valid end of the CommitLog at start-up and cuts everything after it, so no torn or
 * corrupt record is ever served.
 *
 * <ul>
 *   <li>After a clean shutdown (no abort marker) the checkpoint is trusted and, as RocketMQ does,
 *       only the last {@value #NORMAL_RECOVERY_FILES} files are checked.</li>
 *   <li>After a crash the scan starts at the file holding the checkpoint's
 *       {@link StoreCheckpoint#physicRecoveryOffset() recovery offset} (bounded work: that file and
 *       the tail after it). Without a usable recovery offset it falls back to RocketMQ's rule (the last
 *       file whose first record is older than the checkpoint's timestamps), and then to the first file.</li>
 * </ul>
 * Every record from the scan start is checked (length, magic, field lengths, body CRC, physical
 * offset field, and the record CRC property when present; it is required from the checkpoint's
 * {@link StoreCheckpoint#recordCrcFromOffset() recordCrcFromOffset} on, where the store began
 * appending records with it)
 * and handed to the listener (the ConsumeQueue dispatcher); the first invalid one ends the log. The
 * bytes beyond are counted and logged.
 *
 * <p>Runs once, on the start-up thread, before any append.
 */
public final class CommitLogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(CommitLogRecovery.class);

    /** Files checked after a clean shutdown (RocketMQ's recoverNormally). */
    static final int NORMAL_RECOVERY_FILES = 3;

    private final StoreCheckpoint checkpoint;
    private final boolean checkCrc;
    private final int windowSize;
    private final boolean appendRecordCrc;
    private final boolean skipCorrupt;

    /** A recovery for a store that appends without the record CRC property (RocketMQ's default format). */
    public CommitLogRecovery(StoreCheckpoint checkpoint, boolean checkCrc, int maxMessageSize) {
        this(checkpoint, checkCrc, maxMessageSize, false);
    }

    /**
     * @param checkpoint      the store's checkpoint (read for the recovery point)
     * @param checkCrc        verify CRCs (RocketMQ's checkCRCOnRecover, default true)
     * @param maxMessageSize  the store's maxMessageSize, to size the read window so that a record
     *                        normally fits; larger records (from an earlier, larger setting) are read too
     * @param appendRecordCrc whether the store will append records with the record CRC property
     *                        ({@link io.basalt.store.BrokerMessage.Builder#recordCrc}); recovery
     *                        records it in the checkpoint, and the next recovery requires the CRC there
     */
    public CommitLogRecovery(StoreCheckpoint checkpoint, boolean checkCrc, int maxMessageSize,
                             boolean appendRecordCrc) {
        this(checkpoint, checkCrc, maxMessageSize, appendRecordCrc, false);
    }

    /**
     * @param skipCorrupt recoverySkipCorruptRecords: skip a corrupt record that is not a torn tail
     *                    (and report it) instead of refusing to start
     */
    public CommitLogRecovery(StoreCheckpoint checkpoint, boolean checkCrc, int maxMessageSize,
                             boolean appendRecordCrc, boolean skipCorrupt) {
        this.skipCorrupt = skipCorrupt;
        this.checkpoint = checkpoint;
        this.checkCrc = checkCrc;
        this.appendRecordCrc = appendRecordCrc;
        this.windowSize = (int) Math.min(Integer.MAX_VALUE - 8, (long) maxMessageSize + RecordFormat.NON_BODY_RESERVE);
    }

    /**
     * Recovers the loaded CommitLog {@code files} (every file at full positions, as after
     * {@link MappedFileQueue#load()}): scans from the start point, calls {@code onRecord} for each
     * valid record in log order, then cuts the log after the last valid record (zeroes the rest of
     * its file, deletes later files), forces what remains and sets the write, commit and flush
     * positions to the recovered end. The checkpoint's recovery offset is set to that end (now
     * durable) and the checkpoint flushed. Returns what was found; {@link RecoveryResult#maxOffset()}
     * is where appends go on.
     *
     * @param crashed true when the abort marker was present at start-up
     */
    public RecoveryResult recover(MappedFileQueue files, boolean crashed, Consumer<RecordCheck> onRecord)
        throws IOException {
        List<MappedFile> mapped = files.files();
        List<CommitLogScanner.Segment> segments = new ArrayList<>(mapped.size());
        for (MappedFile f : mapped) {
            segments.add(new CommitLogScanner.Segment(f.fileFromOffset(), f.path(), f.fileSize()));
        }
        RecoveryResult result = scan(segments, crashed, onRecord);
        long end = result.maxOffset();
        forceScanned(segments, result.scanStartOffset(), end);
        MappedFile endFile = fileHolding(mapped, end);
        if (result.bytesDropped() > 0) {
            files.truncateDirtyFiles(end);
        } else if (endFile != null) {
            // Only zeros beyond the end (the usual restart, with the next file preallocated): drop the
            // later files but spare rewriting up to a whole file of zeros with zeros. Truncating at the
            // file's last byte keeps the queue from treating the next file as the one holding the cut.
            files.truncateDirtyFiles(endFile.fileFromOffset() + endFile.fileSize() - 1);
        }
        files.resumeAt(end);
        // Everything up to the end was just forced: the next crash can start its scan there.
        checkpoint.physicRecoveryOffset(end);
        if (!appendRecordCrc) {
            checkpoint.recordCrcFromOffset(-1);
        } else if (checkpoint.recordCrcFromOffset() < 0 || checkpoint.recordCrcFromOffset() > end) {
            // Every record appended from here on carries the record CRC: require it there next time.
            checkpoint.recordCrcFromOffset(end);
        }
        checkpoint.flush();
        return result;
    }

    /** The file with {@code fileFromOffset <= offset < its end}, or null (offset at or past the last file's end). */
    private static MappedFile fileHolding(List<MappedFile> files, long offset) {
        for (MappedFile f : files) {
            if (offset >= f.fileFromOffset() && offset < f.fileFromOffset() + f.fileSize()) {
                return f;
            }
        }
        return null;
    }

    /**
     * Forces the files the scan read: records written before the crash may still sit in the page
     * cache only, and the recovered end is reported as flushed, so make it true before appending.
     */
    private static void forceScanned(List<CommitLogScanner.Segment> segments, long from, long to) throws IOException {
        for (CommitLogScanner.Segment s : segments) {
            if (s.fileFromOffset() + s.fileSize() > from && s.fileFromOffset() < to) {
                try (FileChannel ch = FileChannel.open(s.path(), StandardOpenOption.WRITE)) {
                    ch.force(false);
                }
            }
        }
    }

    /** Scans the files and returns the recovered end; does not change any file. */
    RecoveryResult scan(List<CommitLogScanner.Segment> segments, boolean crash, Consumer<RecordCheck> onRecord)
        throws IOException {
        if (segments.isEmpty()) {
            return new RecoveryResult(crash, 0, 0, 0, 0, "no CommitLog files");
        }
        int startIndex = crash ? crashStartIndex(segments) : Math.max(0, segments.size() - NORMAL_RECOVERY_FILES);
        long start = segments.get(startIndex).fileFromOffset();
        long recordCrcFrom = checkpoint.recordCrcFromOffset() >= 0 ? checkpoint.recordCrcFromOffset() : Long.MAX_VALUE;
        // The durable point: the checkpoint's recovery offset is only ever set to an offset a force made
        // durable, so every record below it was flushed (and, under SYNC_FLUSH, acknowledged).
        long durable = checkpoint.physicRecoveryOffset();
        CommitLogScanner.ScanResult r = new CommitLogScanner(checkCrc, windowSize, recordCrcFrom, durable, skipCorrupt)
            .scan(segments, start, onRecord);
        RecoveryResult result = new RecoveryResult(crash, start, r.endOffset(), r.recordsScanned(), r.bytesDropped(),
            r.stopReason(), r.skipped());
        report(result, segments);
        return result;
    }

    private int crashStartIndex(List<CommitLogScanner.Segment> segments) throws IOException {
        long recoveryOffset = checkpoint.physicRecoveryOffset();
        CommitLogScanner.Segment first = segments.get(0);
        CommitLogScanner.Segment last = segments.get(segments.size() - 1);
        long lastEnd = last.fileFromOffset() + last.fileSize();
        if (recoveryOffset >= 0 && recoveryOffset < first.fileFromOffset()) {
            LOG.info("recovery offset {} lies before the first CommitLog file {}; scanning from it",
                recoveryOffset, first.fileFromOffset());
            return 0;
        }
        if (recoveryOffset >= 0 && recoveryOffset <= lastEnd) {
            for (int i = segments.size() - 1; i >= 0; i--) {
                if (segments.get(i).fileFromOffset() <= recoveryOffset) {
                    LOG.info("crash recovery starts at file {} holding recovery offset {}",
                        segments.get(i).path().getFileName(), recoveryOffset);
                    return i;
                }
            }
        }
        if (recoveryOffset > lastEnd) {
            LOG.warn("recovery offset {} lies beyond the last CommitLog file (ends at {}): files are missing",
                recoveryOffset, lastEnd);
        }
        long minTimestamp = checkpoint.minTimestamp();
        if (minTimestamp > 0) {
            for (int i = segments.size() - 1; i >= 0; i--) {
                long firstStoreTimestamp = firstStoreTimestamp(segments.get(i));
                if (firstStoreTimestamp > 0 && firstStoreTimestamp <= minTimestamp) {
                    LOG.info("crash recovery starts at file {} by checkpoint timestamp {}",
                        segments.get(i).path().getFileName(), minTimestamp);
                    return i;
                }
            }
        }
        LOG.warn("no usable recovery point in the checkpoint; crash recovery scans every CommitLog file");
        return 0;
    }

    /** Store timestamp of the first record of a file, or -1 when it does not start with a valid record. */
    private long firstStoreTimestamp(CommitLogScanner.Segment segment) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(Math.min(segment.fileSize(), 64 * 1024));
        try (FileChannel ch = FileChannel.open(segment.path(), StandardOpenOption.READ)) {
            int n;
            do {
                n = ch.read(head, head.position());
            } while (n > 0 && head.hasRemaining());
        }
        head.flip();
        if (head.remaining() < 8 || head.getInt(RecordFormat.MAGIC_CODE_POSITION) != RecordFormat.MESSAGE_MAGIC_CODE
            && head.getInt(RecordFormat.MAGIC_CODE_POSITION) != RecordFormat.MESSAGE_MAGIC_CODE_V2) {
            return -1;
        }
        int sysFlag = head.remaining() > RecordFormat.SYS_FLAG_POSITION + 4 ? head.getInt(RecordFormat.SYS_FLAG_POSITION) : 0;
        int position = RecordFormat.storeTimestampPosition(sysFlag);
        return head.remaining() >= position + 8 ? head.getLong(position) : -1;
    }

    /** The CommitLog file holding {@code offset} (the last one when past its end). */
    private static java.nio.file.Path fileOf(List<CommitLogScanner.Segment> segments, long offset) {
        for (CommitLogScanner.Segment s : segments) {
            if (offset < s.fileFromOffset() + s.fileSize()) {
                return s.path();
            }
        }
        return segments.get(segments.size() - 1).path();
    }

    private void report(RecoveryResult r, List<CommitLogScanner.Segment> segments) {
        long recoveryOffset = checkpoint.physicRecoveryOffset();
        if (r.bytesDropped() > 0) {
            LOG.warn("CommitLog {} recovery: torn tail truncated in file {} at offset {} ({}): {} bytes dropped past "
                + "the durable point {}; scanned {} records from {}", r.crashRecovery() ? "crash" : "normal",
                fileOf(segments, r.maxOffset()), r.maxOffset(), r.stopReason(), r.bytesDropped(), recoveryOffset,
                r.recordsScanned(), r.scanStartOffset());
        } else {
            LOG.info("CommitLog {} recovery: valid log ends at {} ({}); scanned {} records from {}",
                r.crashRecovery() ? "crash" : "normal", r.maxOffset(), r.stopReason(), r.recordsScanned(),
                r.scanStartOffset());
        }
        if (recoveryOffset > r.maxOffset() && recoveryOffset >= r.scanStartOffset()) {
            LOG.error("CommitLog recovery cut the log at {} below the durable recovery offset {}: a flushed record "
                + "is corrupt on disk ({})", r.maxOffset(), recoveryOffset, r.stopReason());
        }
    }
}
