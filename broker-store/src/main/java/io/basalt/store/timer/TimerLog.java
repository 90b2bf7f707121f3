package io.basalt.store.timer;

import io.basalt.store.SelectedBuffer;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code timerlog/} directory, byte-compatible with RocketMQ 5.2.0's {@code TimerLog}: files named by
 * their 20-digit start offset holding 52-byte units (big-endian):
 * size 52 (4), prevPos (8), magic (4), write time (8), slot time − write time (4), CommitLog offset (8),
 * record size (4), REAL_TOPIC hash (4), reserved (8). When a unit and the 16-byte blank would not both fit,
 * the file ends with a blank (remaining size, 0L, {@link #BLANK_MAGIC}) and the next unit starts the next file.
 *
 * <p>The enqueue thread appends; the dequeue thread and recovery read; the flush thread flushes.
 */
public final class TimerLog implements AutoCloseable {
    public static final int UNIT_SIZE = 52;
    public static final int MIN_BLANK_LEN = 16;
    public static final int BLANK_MAGIC = 0xBBCCDDEE ^ (1880681586 + 8);

    private final MappedFileQueue files;
    private final int fileSize;
    private final ByteBuffer unitBuffer = ByteBuffer.allocate(UNIT_SIZE);

    /** One unit as stored. */
    public record Unit(long pos, long prevPos, int magic, long writeTimeMs, int delta, long commitLogOffset,
                       int recordSize, int topicHash) {
        /** The slot time the unit belongs to. */
        public long slotTimeMs() {
            return writeTimeMs + delta;
        }
    }

    public TimerLog(Path dir, int fileSize) {
        this.fileSize = fileSize;
        this.files = new MappedFileQueue(dir, fileSize, null, MappedFile.Allocation.FALLOCATE);
    }

    /** Maps the existing files (positions full until {@link #resumeAt}). */
    public void load() throws IOException {
        files.load();
    }

    public int fileSize() {
        return fileSize;
    }

    /** Offset of the last unit a full file holds ({@code getOffsetForLastUnit} in RocketMQ). */
    public int lastUnitPositionInFile() {
        return (fileSize - UNIT_SIZE - MIN_BLANK_LEN) / UNIT_SIZE * UNIT_SIZE;
    }

    /**
     * Appends one unit and returns its offset. Enqueue thread only.
     */
    public long append(long prevPos, int magic, long writeTimeMs, int delta, long commitLogOffset, int recordSize,
                       int topicHash) throws IOException {
        MappedFile file = files.lastFileOrCreate(0);
        if (fileSize - file.wrotePosition() < UNIT_SIZE + MIN_BLANK_LEN) {
            int remaining = fileSize - file.wrotePosition();
            ByteBuffer blank = ByteBuffer.allocate(remaining);
            blank.putInt(remaining).putLong(0).putInt(BLANK_MAGIC).clear();
            if (!file.appendRaw(blank)) {
                throw new IOException("cannot write the blank at the end of " + file.path());
            }
            file = files.lastFileOrCreate(0);
        }
        long pos = file.fileFromOffset() + file.wrotePosition();
        ByteBuffer b = unitBuffer.clear();
        b.putInt(UNIT_SIZE).putLong(prevPos).putInt(magic).putLong(writeTimeMs).putInt(delta).putLong(commitLogOffset)
            .putInt(recordSize).putInt(topicHash).putLong(0).flip();
        if (!file.appendRaw(b)) {
            throw new IOException("cannot append a timer-log unit to " + file.path());
        }
        return pos;
    }

    /** The unit at {@code pos}, or null when none is readable there (deleted file, beyond the end, bad size). */
    public Unit read(long pos) {
        MappedFile file = files.findFileByOffset(pos, false);
        if (file == null) {
            return null;
        }
        SelectedBuffer b = file.select((int) (pos - file.fileFromOffset()), UNIT_SIZE);
        if (b == null) {
            return null;
        }
        try {
            ByteBuffer buf = b.buffer();
            return decode(pos, buf, 0);
        } finally {
            b.release();
        }
    }

    static Unit decode(long pos, ByteBuffer buf, int at) {
        int size = buf.getInt(at);
        int magic = buf.getInt(at + 12);
        if (size != UNIT_SIZE || (magic | 0xF) != 0xF) {
            return null;
        }
        return new Unit(pos, buf.getLong(at + 4), magic, buf.getLong(at + 16), buf.getInt(at + 24), buf.getLong(at + 28),
            buf.getInt(at + 36), buf.getInt(at + 40));
    }

    /** What a scan found: the valid end and the units (visited in order). */
    @FunctionalInterface
    public interface UnitVisitor {
        void visit(Unit unit);
    }

    /**
     * Recovery: scans the files from the one holding {@code from} (rounded down to its file), visiting each
     * well-formed unit, skipping file-end blanks, and stops at the first malformed bytes; returns the offset
     * there (the valid end of the log). Reads the mapping directly: positions are full after load.
     */
    public long scan(long from, UnitVisitor visitor) {
        List<MappedFile> snapshot = files.files();
        if (snapshot.isEmpty()) {
            return Math.max(0, from - from % fileSize);
        }
        long start = Math.max(from - from % fileSize, snapshot.get(0).fileFromOffset());
        long end = start;
        for (MappedFile file : snapshot) {
            if (file.fileFromOffset() + fileSize <= start) {
                continue;
            }
            SelectedBuffer b = file.select(0, fileSize);
            if (b == null) {
                return end;
            }
            try {
                ByteBuffer buf = b.buffer();
                int at = (int) Math.max(0, start - file.fileFromOffset());
                while (at + MIN_BLANK_LEN <= fileSize) {
                    if (buf.getInt(at + 12) == BLANK_MAGIC && buf.getInt(at) == fileSize - at) {
                        at = fileSize;
                        break;
                    }
                    if (at + UNIT_SIZE > fileSize) {
                        break;
                    }
                    Unit u = decode(file.fileFromOffset() + at, buf, at);
                    if (u == null) {
                        return file.fileFromOffset() + at;
                    }
                    visitor.visit(u);
                    at += UNIT_SIZE;
                }
                end = file.fileFromOffset() + at;
                if (at < fileSize) {
                    return end;
                }
            } finally {
                b.release();
            }
        }
        return end;
    }

    /** Recovery: everything before {@code end} is valid; the rest is zeroed or deleted and appends resume there. */
    public void resumeAt(long end) throws IOException {
        files.truncateDirtyFiles(end);
        files.resumeAt(end);
    }

    /** End of the appended units. */
    public long appendedOffset() {
        return files.appendedOffset();
    }

    /** Start of the first file, or 0 with none. */
    public long minOffset() {
        long min = files.minOffset();
        return Math.max(min, 0);
    }

    /** Forces what was appended; returns the flushed end. Flush thread only. */
    public long flush() throws IOException {
        while (files.flush(0)) {
            // a full file is forced, then the next one
        }
        return files.flushedOffset();
    }

    /**
     * Deletes the oldest files (never the last) whose last unit points below {@code commitLogMinOffset}:
     * their records are gone. Returns how many were deleted. Flush thread only.
     */
    public int deleteFilesBelow(long commitLogMinOffset) {
        return files.deleteFirstFilesWhile(file -> {
            if (!file.isFull()) {
                return false;
            }
            SelectedBuffer b = file.select(lastUnitPositionInFile(), UNIT_SIZE);
            if (b == null) {
                return false;
            }
            try {
                Unit u = decode(file.fileFromOffset() + lastUnitPositionInFile(), b.buffer(), 0);
                return u != null && u.commitLogOffset() < commitLogMinOffset;
            } finally {
                b.release();
            }
        }, 1000);
    }

    public int fileCount() {
        return files.files().size();
    }

    /** Unmaps every file. */
    @Override
    public void close() {
        files.shutdown();
    }
}
