package io.basalt.store.recovery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.CorruptCommitLogException;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.commitlog.RecordFormat;

/**
 * Walks CommitLog files record by record from a start offset and finds where the valid log ends:
 * the first record whose length, magic, field lengths, body CRC or physical-offset field is wrong,
 * or that is cut short. An END_OF_FILE marker must reach exactly the end of its file; the walk
 * then continues at the start of the next file.
 *
 * <p>Reads with positional {@link FileChannel} reads through a window (at least 4 MiB, grown for a
 * larger record), independent of how the files are mapped. Record sizes are not limited by the
 * current maxMessageSize: records written under a larger setting stay readable. Single-threaded.
 */
final class CommitLogScanner {
    /** One CommitLog file: its global base offset, path and nominal size. */
    record Segment(long fileFromOffset, Path path, int fileSize) {
    }

    /** Where the valid log ends, and what lies beyond it. */
    record ScanResult(long endOffset, long recordsScanned, long bytesDropped, String stopReason,
                      List<SkippedRange> skipped) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(CommitLogScanner.class);
    private static final int WINDOW = 4 * 1024 * 1024;
    /** How far past the valid end (and into each later file) dropped bytes are counted. */
    static final int DIRTY_SCAN_LIMIT = 64 * 1024 * 1024;
    /** Shortest message record worth a full check while looking for the next valid one. */
    private static final int MIN_RECORD_LENGTH = 8;

    private final MessageRecordDecoder decoder = new MessageRecordDecoder();
    private final boolean checkCrc;
    private final int windowSize;
    private final long recordCrcFromOffset;
    private final long durableOffset;
    private final boolean skipCorrupt;
    /** false: every bad record ends the log (detection only, no durable point); true: torn tail or corruption. */
    private final boolean classify;
    private ByteBuffer window;
    private long windowStart;
    private int windowLength;

    /**
     * @param windowSize          bytes read at a time; a record larger than that (up to a whole file)
     *                            is still read, by growing the window for it
     * @param recordCrcFromOffset records from this offset on must carry the record CRC property
     *                            (Long.MAX_VALUE: none must)
     * @param durableOffset       the durable point: every record below it was flushed (-1: unknown),
     *                            so a bad record there is corruption, never a torn tail
     * @param skipCorrupt         skip corrupt records followed by valid ones (recoverySkipCorruptRecords)
     *                            instead of throwing {@link CorruptCommitLogException}
     */
    CommitLogScanner(boolean checkCrc, int windowSize, long recordCrcFromOffset, long durableOffset,
                     boolean skipCorrupt) {
        this.checkCrc = checkCrc;
        this.windowSize = Math.max(WINDOW, windowSize);
        this.recordCrcFromOffset = recordCrcFromOffset;
        this.durableOffset = durableOffset;
        this.skipCorrupt = skipCorrupt;
        this.classify = true;
    }

    /** A scanner for which the first bad record ends the log, whatever follows it (record checks only). */
    CommitLogScanner(boolean checkCrc, int windowSize, long recordCrcFromOffset) {
        this.checkCrc = checkCrc;
        this.windowSize = Math.max(WINDOW, windowSize);
        this.recordCrcFromOffset = recordCrcFromOffset;
        this.durableOffset = Long.MAX_VALUE;
        this.skipCorrupt = false;
        this.classify = false;
    }

    /**
     * Scans {@code segments} (ordered, contiguous) from {@code startOffset}, which must be a record
     * boundary inside one of them (or the end of the last). Calls {@code onRecord} for each valid
     * message record in order. Bytes dropped = the extent of non-zero bytes after the end in its
     * file plus that of every later file, each looked for up to {@link #DIRTY_SCAN_LIMIT} bytes.
     *
     * <p>A record that fails its checks at or past the durable point is a torn tail: the log ends
     * there (nothing after it was proven on disk, and after a power loss pages reach the disk in any
     * order, so valid-looking records after a hole prove nothing). Below the durable point it is
     * corruption: the scan throws {@link CorruptCommitLogException} naming file and offset, or, when
     * skipping is allowed, skips to the next valid record and goes on.
     */
    ScanResult scan(List<Segment> segments, long startOffset, Consumer<RecordCheck> onRecord) throws IOException {
        int index = indexOf(segments, startOffset);
        if (index < 0) {
            return new ScanResult(startOffset, 0, 0, "no file holds the start offset " + startOffset, List.of());
        }
        List<SkippedRange> skipped = new ArrayList<>();
        long records = 0;
        int position = (int) (startOffset - segments.get(index).fileFromOffset());
        while (true) {
            Segment segment = segments.get(index);
            LOG.info("recovering CommitLog file {} ({} of {}) from position {}", segment.path().getFileName(),
                index + 1, segments.size(), position);
            int nextIndex = index + 1;
            try (FileChannel ch = FileChannel.open(segment.path(), StandardOpenOption.READ)) {
                long fileLength = Math.min(ch.size(), segment.fileSize());
                windowLength = 0;
                while (position < segment.fileSize()) {
                    Stop stop = null;
                    RecordCheck check = checkAt(ch, segment, fileLength, position);
                    if (check.status() == RecordCheck.Status.OK) {
                        long expected = segment.fileFromOffset() + position;
                        if (check.physicalOffset() != expected) {
                            stop = new Stop(position, "record says physical offset " + check.physicalOffset()
                                + " but lies at " + expected);
                        } else {
                            onRecord.accept(check);
                            records++;
                            position += check.size();
                        }
                    } else if (check.status() == RecordCheck.Status.END_OF_FILE) {
                        if (position + check.size() != segment.fileSize()) {
                            stop = new Stop(position, "END_OF_FILE marker of " + check.size()
                                + " bytes does not reach the end of the file");
                        } else {
                            position = segment.fileSize();
                        }
                    } else {
                        stop = new Stop(position, check.reason());
                    }
                    if (stop == null) {
                        continue;
                    }
                    long stopOffset = segment.fileFromOffset() + stop.position;
                    if (!classify || stopOffset >= durableOffset) {
                        // a torn tail: written after the last proven flush, nothing valid after it
                        long dropped = nonZeroExtent(ch, stop.position, fileLength);
                        for (int i = index + 1; i < segments.size(); i++) {
                            dropped += nonZeroExtent(segments.get(i), 0);
                        }
                        return new ScanResult(stopOffset, records, dropped, stop.reason, skipped);
                    }
                    long next = nextValidRecord(segments, index, ch, fileLength, stop.position);
                    String where = "it lies below the durable point " + durableOffset + " (flushed before the last stop)";
                    String after = next >= 0 ? where + " and a valid record follows at offset " + next : where;
                    if (!skipCorrupt) {
                        throw new CorruptCommitLogException(segment.path(), stopOffset, stop.position, stop.reason,
                            after);
                    }
                    if (next < 0) {
                        LOG.error("recoverySkipCorruptRecords: CommitLog file {} is corrupt at offset {} ({}) below "
                            + "the durable point {} with no valid record after it: the log ends there",
                            segment.path(), stopOffset, stop.reason, durableOffset);
                        long dropped = nonZeroExtent(ch, stop.position, fileLength);
                        for (int i = index + 1; i < segments.size(); i++) {
                            dropped += nonZeroExtent(segments.get(i), 0);
                        }
                        return new ScanResult(stopOffset, records, dropped, stop.reason, skipped);
                    }
                    LOG.warn("recoverySkipCorruptRecords: skipping {} corrupt bytes of CommitLog file {} at offset {} "
                        + "({}); the next valid record is at offset {}", next - stopOffset, segment.path(), stopOffset,
                        stop.reason, next);
                    skipped.add(new SkippedRange(stopOffset, next, stop.reason));
                    if (next < segment.fileFromOffset() + segment.fileSize()) {
                        position = (int) (next - segment.fileFromOffset());
                    } else {
                        position = segment.fileSize();
                    }
                }
            }
            if (nextIndex == segments.size()) {
                return new ScanResult(segment.fileFromOffset() + segment.fileSize(), records, 0, "end of the last file",
                    skipped);
            }
            index = nextIndex;
            position = 0;
        }
    }

    /**
     * The offset of the first valid record after the bad one at {@code badPosition}: a record whose
     * checks pass and whose physical-offset field names where it lies, searched byte by byte through
     * the rest of the file (up to {@link #DIRTY_SCAN_LIMIT} bytes) and at the start of the next file.
     * -1 when there is none.
     */
    private long nextValidRecord(List<Segment> segments, int index, FileChannel ch, long fileLength, int badPosition)
        throws IOException {
        Segment segment = segments.get(index);
        long limit = Math.min(fileLength, (long) badPosition + DIRTY_SCAN_LIMIT) - MIN_RECORD_LENGTH;
        for (int p = badPosition + 1; p <= limit; p++) {
            ensureWindow(ch, fileLength, p, MIN_RECORD_LENGTH);
            int magic = window.getInt(p - (int) windowStart + RecordFormat.MAGIC_CODE_POSITION);
            if (magic != RecordFormat.MESSAGE_MAGIC_CODE && magic != RecordFormat.MESSAGE_MAGIC_CODE_V2) {
                continue;
            }
            RecordCheck check = checkAt(ch, segment, fileLength, p);
            if (check.status() == RecordCheck.Status.OK && check.physicalOffset() == segment.fileFromOffset() + p) {
                return segment.fileFromOffset() + p;
            }
        }
        if (index + 1 < segments.size()) {
            Segment following = segments.get(index + 1);
            try (FileChannel next = FileChannel.open(following.path(), StandardOpenOption.READ)) {
                RecordCheck check = new CommitLogScanner(checkCrc, windowSize, recordCrcFromOffset, durableOffset,
                    skipCorrupt).checkAt(next, following, Math.min(next.size(), following.fileSize()), 0);
                if (check.status() == RecordCheck.Status.OK && check.physicalOffset() == following.fileFromOffset()) {
                    return following.fileFromOffset();
                }
            }
        }
        return -1;
    }

    private record Stop(int position, String reason) {
    }

    private static int indexOf(List<Segment> segments, long offset) {
        for (int i = 0; i < segments.size(); i++) {
            Segment s = segments.get(i);
            if (offset >= s.fileFromOffset() && offset <= s.fileFromOffset() + s.fileSize()) {
                return i;
            }
        }
        return -1;
    }

    /** Checks the record at {@code position}, loading the window so the whole record is in it when possible. */
    private RecordCheck checkAt(FileChannel ch, Segment segment, long fileLength, int position) throws IOException {
        ensureWindow(ch, fileLength, position, RecordFormat.END_FILE_MIN_BLANK_LENGTH);
        boolean requireRecordCrc = segment.fileFromOffset() + position >= recordCrcFromOffset;
        RecordCheck check = checkInWindow(position, requireRecordCrc);
        if (check.status() == RecordCheck.Status.TRUNCATED && windowStart + windowLength < fileLength) {
            int totalSize = window.getInt((int) (position - windowStart));
            if (totalSize > segment.fileSize() - RecordFormat.END_FILE_MIN_BLANK_LENGTH) {
                return RecordCheck.corrupt("total size " + totalSize + " larger than a file can hold");
            }
            ensureWindow(ch, fileLength, position, totalSize);
            check = checkInWindow(position, requireRecordCrc);
        }
        return check;
    }

    private RecordCheck checkInWindow(int position, boolean requireRecordCrc) {
        ByteBuffer view = window.duplicate();
        view.limit(windowLength).position((int) (position - windowStart));
        return decoder.check(view, checkCrc, requireRecordCrc);
    }

    /** Makes {@code [position, position + needed)} (clipped to the file) readable in the window. */
    private void ensureWindow(FileChannel ch, long fileLength, int position, int needed) throws IOException {
        long wantEnd = Math.min(fileLength, (long) position + needed);
        if (window != null && position >= windowStart && wantEnd <= windowStart + windowLength) {
            return;
        }
        int capacity = Math.max(windowSize, needed);
        if (window == null || window.capacity() < capacity) {
            window = ByteBuffer.allocate(capacity);
        }
        window.clear();
        window.limit((int) Math.min(window.capacity(), Math.max(0, fileLength - position)));
        while (window.hasRemaining()) {
            int n = ch.read(window, position + window.position());
            if (n < 0) {
                break;
            }
        }
        windowStart = position;
        windowLength = window.position();
    }

    /**
     * Bytes from {@code position} to the last non-zero byte of the file (0 if all zero), looking at
     * most {@link #DIRTY_SCAN_LIMIT} bytes ahead: bytes written before a crash start right at the
     * cut, and this keeps a restart from reading a whole preallocated file of zeros.
     */
    private long nonZeroExtent(Segment segment, int position) throws IOException {
        try (FileChannel ch = FileChannel.open(segment.path(), StandardOpenOption.READ)) {
            return nonZeroExtent(ch, position, Math.min(ch.size(), segment.fileSize()));
        }
    }

    private long nonZeroExtent(FileChannel ch, int position, long fileLength) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        long lastNonZero = -1;
        long at = position;
        long limit = Math.min(fileLength, position + DIRTY_SCAN_LIMIT);
        while (at < limit) {
            buf.clear().limit((int) Math.min(buf.capacity(), limit - at));
            int n = ch.read(buf, at);
            if (n <= 0) {
                break;
            }
            for (int i = n - 1; i >= 0; i--) {
                if (buf.get(i) != 0) {
                    lastNonZero = at + i;
                    break;
                }
            }
            at += n;
        }
        return lastNonZero < 0 ? 0 : lastNonZero + 1 - position;
    }
}
