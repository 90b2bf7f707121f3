package io.basalt.store.queue;

import io.basalt.store.BoundaryType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.basalt.common.io.Closeables;
import io.basalt.store.mappedfile.StoreFiles;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ConsumeQueue of one (topic, queueId): the logical queue a consumer reads, one fixed 20-byte
 * entry per message pointing into the CommitLog, in files under {@code consumequeue/<topic>/<queueId>/}.
 *
 * <pre>
 * entry (20 bytes, big-endian):  [long physicalOffset][int size][long tagsCode]
 * entry i lives at logical byte i * 20; a file holds fileSize / 20 entries and is named
 * by the 20-digit logical byte offset of its first entry (00000000000000000000, 00000000000006000000, ...)
 * </pre>
 *
 * <p>Unwritten entries are zeros. When the first file of a queue starts below its first entry (the
 * earlier files were deleted, or the queue was created at a non-zero offset), the entries before it
 * are placeholders {@code (0, Integer.MAX_VALUE, 0)}, as RocketMQ writes them.
 *
 * <p>Writes: the dispatcher {@link #append}s entries into a small buffer and {@link #commit}s them
 * with one positional write per file at the end of its round (one system call for many entries
 * instead of one each); {@link #put} does both. An entry becomes visible to readers only once its
 * bytes are written: the volatile {@code maxLogicByteOffset} is published last.
 *
 * <p>Threads: one writer at a time (the dispatcher, or recovery before it starts) calls the mutating
 * methods; readers may call {@link #read}, {@link #entry}, the offset getters and
 * {@link #offsetForTimestamp} from any thread; the cleaning thread calls {@link #deleteFilesBelow}
 * and {@link #correctMinOffset} (they move only the min offset) and {@link #flush}.
 */
public final class ConsumeQueue {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumeQueue.class);
    private static final int SCAN_CHUNK = 64 * 1024 / ConsumeQueueEntry.SIZE * ConsumeQueueEntry.SIZE;
    private static final int PENDING_ENTRIES = 256;

    /** Outcome of {@link #put}. */
    public enum PutResult {
        /** The entry was written. */
        APPENDED,
        /** The queue already holds this entry (re-dispatch after restart); nothing written. */
        DUPLICATE,
        /** The entry's logical offset is beyond the queue's end: entries before it are missing. */
        GAP
    }

    private final String topic;
    private final int queueId;
    private final Path dir;
    private final int fileSize;
    private final CopyOnWriteArrayList<ConsumeQueueFile> files;
    private final OpenFileBudget budget;
    private final ByteBuffer pending = ByteBuffer.allocate(PENDING_ENTRIES * ConsumeQueueEntry.SIZE);

    private volatile long minLogicByteOffset;
    private volatile long maxLogicByteOffset;
    private volatile long maxPhysicalOffset;

    // Writer thread only: where the next entry goes and the end of the last entry, pending included.
    private long pendingStart;
    private long writeLogicByteOffset;
    private long writePhysicOffset;

    ConsumeQueue(String topic, int queueId, Path dir, int fileSize, List<ConsumeQueueFile> loaded, OpenFileBudget budget) {
        if (fileSize <= 0 || fileSize % ConsumeQueueEntry.SIZE != 0) {
            throw new IllegalArgumentException("mappedFileSizeConsumeQueue must be a positive multiple of 20: " + fileSize);
        }
        this.topic = topic;
        this.queueId = queueId;
        this.dir = dir;
        this.fileSize = fileSize;
        this.files = new CopyOnWriteArrayList<>(loaded);
        this.budget = budget;
        if (!loaded.isEmpty()) {
            ConsumeQueueFile last = loaded.get(loaded.size() - 1);
            this.minLogicByteOffset = loaded.get(0).fileFromOffset();
            this.maxLogicByteOffset = last.fileFromOffset() + fileSize;
        }
        syncWriterState();
    }

    /**
     * Opens the queue in {@code dir} (creating the directory if needed) and loads its files, which
     * must be contiguous and each exactly {@code fileSize} bytes. Positions are only known after
     * {@link #recover()}.
     */
    public static ConsumeQueue open(Path dir, String topic, int queueId, int fileSize) throws IOException {
        return open(dir, topic, queueId, fileSize, OpenFileBudget.unbounded());
    }

    /** As {@link #open(Path, String, int, int)}, the files' channels opened lazily within {@code budget}. */
    static ConsumeQueue open(Path dir, String topic, int queueId, int fileSize, OpenFileBudget budget) throws IOException {
        Files.createDirectories(dir);
        List<Path> paths = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (StoreFiles.isDeleteLeftover(p)) {
                    Files.delete(p); // a deletion that a crash interrupted
                } else {
                    paths.add(p);
                }
            }
        }
        paths.sort(null);
        List<ConsumeQueueFile> loaded = new ArrayList<>();
        try {
            long expected = -1;
            for (Path p : paths) {
                String name = p.getFileName().toString();
                long from = StoreFiles.parseFileName(name);
                if (from < 0) {
                    throw new IOException("ConsumeQueue file " + p + " is not named by a 20-digit offset");
                }
                if (from % fileSize != 0) {
                    throw new IOException("ConsumeQueue file " + p + " is not at a multiple of mappedFileSizeConsumeQueue " + fileSize);
                }
                if (expected >= 0 && from != expected) {
                    throw new IOException("ConsumeQueue file " + p + " does not follow the previous file (expected "
                            + StoreFiles.fileName(expected) + ")");
                }
                loaded.add(ConsumeQueueFile.open(dir, from, fileSize, budget));
                expected = from + fileSize;
            }
        } catch (IOException | RuntimeException e) {
            Closeables.closeAllAfter(e, loaded, ConsumeQueueFile::close);
            throw e;
        }
        return new ConsumeQueue(topic, queueId, dir, fileSize, loaded, budget);
    }

    public String topic() {
        return topic;
    }

    public int queueId() {
        return queueId;
    }

    /** Logical offset of the first readable entry. */
    public long minOffset() {
        return minLogicByteOffset / ConsumeQueueEntry.SIZE;
    }

    /** Logical offset the next entry will get (the number of entries ever written). */
    public long maxOffset() {
        return maxLogicByteOffset / ConsumeQueueEntry.SIZE;
    }

    /** End (offset + size) in the CommitLog of the last entry; 0 for an empty queue. */
    public long maxPhysicalOffset() {
        return maxPhysicalOffset;
    }

    /** Logical offset the writer's next entry gets (uncommitted entries included). Writer thread. */
    long writeOffset() {
        return writeLogicByteOffset / ConsumeQueueEntry.SIZE;
    }

    /** End in the CommitLog of the writer's last entry (uncommitted entries included). Writer thread. */
    long writePhysicOffset() {
        return writePhysicOffset;
    }

    /** {@link #append} and {@link #commit}: the entry is visible when this returns. */
    public PutResult put(long physicalOffset, int size, long tagsCode, long consumeQueueOffset) throws IOException {
        PutResult result = append(physicalOffset, size, tagsCode, consumeQueueOffset);
        commit();
        return result;
    }

    /**
     * Adds the entry for {@code consumeQueueOffset}; readers see it after the next {@link #commit()}.
     * Idempotent, so that re-dispatching a CommitLog range after a restart is harmless: an entry below
     * the queue's end, or one whose record lies below the end of the last entry, is
     * {@link PutResult#DUPLICATE}. An entry beyond the end is a {@link PutResult#GAP}, except as the
     * first entry of an empty queue, which then starts there (placeholders before it in its file).
     */
    public PutResult append(long physicalOffset, int size, long tagsCode, long consumeQueueOffset) throws IOException {
        long expected = consumeQueueOffset * ConsumeQueueEntry.SIZE;
        if (physicalOffset + size <= writePhysicOffset || expected < writeLogicByteOffset) {
            return PutResult.DUPLICATE;
        }
        if (expected > writeLogicByteOffset) {
            if (!files.isEmpty() || pending.position() > 0) {
                return PutResult.GAP;
            }
            startAt(expected);
        }
        if (pending.position() > 0
                && (!pending.hasRemaining() || expected / fileSize != pendingStart / fileSize)) {
            commit();
        }
        if (pending.position() == 0) {
            pendingStart = expected;
        }
        pending.putLong(physicalOffset).putInt(size).putLong(tagsCode);
        writeLogicByteOffset = expected + ConsumeQueueEntry.SIZE;
        writePhysicOffset = physicalOffset + size;
        return PutResult.APPENDED;
    }

    /**
     * Writes the appended entries (one positional write; they never span files) and publishes them
     * to readers. Writer thread. On failure the unwritten entries are dropped and the writer goes back
     * to the last published entry.
     */
    public void commit() throws IOException {
        if (pending.position() == 0) {
            return;
        }
        pending.flip();
        try {
            ConsumeQueueFile file = fileForWrite(pendingStart);
            file.write((int) (pendingStart - file.fileFromOffset()), pending);
        } catch (IOException | RuntimeException e) {
            syncWriterState();
            throw e;
        } finally {
            pending.clear();
        }
        maxPhysicalOffset = writePhysicOffset;
        maxLogicByteOffset = writeLogicByteOffset;
    }

    /** Drops uncommitted entries and sets the writer's position to the published end. */
    private void syncWriterState() {
        pending.clear();
        writeLogicByteOffset = maxLogicByteOffset;
        writePhysicOffset = maxPhysicalOffset;
    }

    /**
     * Fills the queue with placeholder entries up to (excluding) {@code consumeQueueOffset}: used when
     * the records of a gap are no longer in the CommitLog, so that later entries keep the offsets
     * producers were given. Commits what was appended before.
     */
    public void fillGapTo(long consumeQueueOffset) throws IOException {
        commit();
        long until = consumeQueueOffset * ConsumeQueueEntry.SIZE;
        if (until <= writeLogicByteOffset) {
            return;
        }
        writePlaceholders(writeLogicByteOffset, until);
        writeLogicByteOffset = until;
        maxLogicByteOffset = until;
    }

    /** First entry of an empty queue at {@code logicByteOffset}: placeholders from its file's start. */
    private void startAt(long logicByteOffset) throws IOException {
        long fileFrom = logicByteOffset - logicByteOffset % fileSize;
        writePlaceholders(fileFrom, logicByteOffset);
        minLogicByteOffset = logicByteOffset;
        maxLogicByteOffset = logicByteOffset;
        writeLogicByteOffset = logicByteOffset;
        LOG.info("ConsumeQueue {}-{} starts at logical offset {}", topic, queueId, logicByteOffset / ConsumeQueueEntry.SIZE);
    }

    /** Writes placeholder entries over [from, until), a chunk per write, across files as needed. */
    private void writePlaceholders(long from, long until) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(SCAN_CHUNK, until - from));
        while (chunk.hasRemaining()) {
            chunk.putLong(0).putInt(ConsumeQueueEntry.PLACEHOLDER_SIZE).putLong(0);
        }
        long at = from;
        while (at < until) {
            ConsumeQueueFile file = fileForWrite(at);
            long fileEnd = file.fileFromOffset() + fileSize;
            int length = (int) Math.min(Math.min(chunk.capacity(), until - at), fileEnd - at);
            chunk.clear().limit(length);
            file.write((int) (at - file.fileFromOffset()), chunk);
            at += length;
        }
    }

    private ConsumeQueueFile fileForWrite(long logicByteOffset) throws IOException {
        if (!files.isEmpty()) {
            ConsumeQueueFile last = files.get(files.size() - 1);
            if (logicByteOffset >= last.fileFromOffset() && logicByteOffset < last.fileFromOffset() + fileSize) {
                return last;
            }
        }
        ConsumeQueueFile created = ConsumeQueueFile.open(dir, logicByteOffset - logicByteOffset % fileSize, fileSize, budget);
        files.add(created);
        return created;
    }

    /** The file holding {@code logicByteOffset}, found by arithmetic on the first file (O(1)), or null. */
    private ConsumeQueueFile fileFor(long logicByteOffset) {
        Object[] snapshot = files.toArray();
        if (snapshot.length == 0) {
            return null;
        }
        ConsumeQueueFile first = (ConsumeQueueFile) snapshot[0];
        long index = (logicByteOffset - first.fileFromOffset()) / fileSize;
        if (logicByteOffset < first.fileFromOffset() || index >= snapshot.length) {
            return null;
        }
        ConsumeQueueFile file = (ConsumeQueueFile) snapshot[(int) index];
        return file.fileFromOffset() <= logicByteOffset && logicByteOffset < file.fileFromOffset() + fileSize ? file : null;
    }

    /**
     * Copies up to {@code maxEntries} entries starting at {@code consumeQueueOffset} into {@code dst}
     * (from its position; at most what fits, and never past the end of the file holding the first
     * entry). Returns the number of entries copied: 0 if the offset is outside [min, max) or its file
     * was deleted meanwhile.
     */
    public int read(long consumeQueueOffset, int maxEntries, ByteBuffer dst) {
        long min = minLogicByteOffset;
        long max = maxLogicByteOffset;
        long at = consumeQueueOffset * ConsumeQueueEntry.SIZE;
        if (consumeQueueOffset < 0 || at < min || at >= max || maxEntries <= 0) {
            return 0;
        }
        ConsumeQueueFile file = fileFor(at);
        if (file == null) {
            return 0;
        }
        long inFile = (file.fileFromOffset() + fileSize - at) / ConsumeQueueEntry.SIZE;
        long available = Math.min(inFile, (max - at) / ConsumeQueueEntry.SIZE);
        int n = (int) Math.min(Math.min(maxEntries, available), dst.remaining() / ConsumeQueueEntry.SIZE);
        if (n == 0) {
            return 0;
        }
        int start = dst.position();
        ByteBuffer window = dst.duplicate();
        window.limit(start + n * ConsumeQueueEntry.SIZE);
        int read = file.read((int) (at - file.fileFromOffset()), window);
        if (read < 0) {
            return 0;
        }
        int entries = read / ConsumeQueueEntry.SIZE;
        dst.position(start + entries * ConsumeQueueEntry.SIZE);
        return entries;
    }

    /** The entry at {@code consumeQueueOffset}, or null outside [min, max). */
    public ConsumeQueueEntry entry(long consumeQueueOffset) {
        ByteBuffer one = ByteBuffer.allocate(ConsumeQueueEntry.SIZE);
        if (read(consumeQueueOffset, 1, one) != 1) {
            return null;
        }
        return new ConsumeQueueEntry(one.getLong(0), one.getInt(8), one.getLong(12));
    }

    /**
     * Logical offset for a store time, by binary search over [min, max) reading each probed record's
     * store timestamp through {@code lookup}. LOWER: the first message stored at or after
     * {@code timestamp} (max offset if none). UPPER: the last message stored at or before it (min
     * offset if none). Records the lookup cannot read count as older than any timestamp.
     */
    public long offsetForTimestamp(long timestamp, BoundaryType boundary, StoreTimestampLookup lookup) {
        long low = minOffset();
        long high = maxOffset() - 1;
        long found = -1;
        while (low <= high) {
            long mid = (low + high) >>> 1;
            ConsumeQueueEntry e = entry(mid);
            long storeTime = e == null || e.isPlaceholder() ? -1 : lookup.storeTimestamp(e.physicalOffset(), e.size());
            boolean goRight = boundary == BoundaryType.LOWER ? storeTime < timestamp : storeTime <= timestamp;
            if (goRight) {
                if (boundary == BoundaryType.UPPER && storeTime >= 0) {
                    found = mid;
                }
                low = mid + 1;
            } else {
                if (boundary == BoundaryType.LOWER) {
                    found = mid;
                }
                high = mid - 1;
            }
        }
        if (found >= 0) {
            return found;
        }
        return boundary == BoundaryType.LOWER ? maxOffset() : minOffset();
    }

    /**
     * Recovery: scans from the third-last file forward, entry by entry, and ends the queue at the
     * first entry that is invalid (RocketMQ's {@code offset >= 0 && size > 0}) or whose CommitLog
     * offset goes backwards (garbage), and deletes later files (with a WARN line each). When the
     * queue ends at unwritten (zero) bytes, the usual case, nothing is written: the next entry
     * overwrites the tail, so a start needs no free disk space. Only damaged bytes are zeroed, with a
     * WARN line, so that no later recovery reads them as entries.
     * Returns true if the queue ended at a damaged entry (non-zero bytes that are not a valid entry),
     * false if it ended at unwritten (zero) bytes.
     */
    public boolean recover() throws IOException {
        if (files.isEmpty()) {
            minLogicByteOffset = maxLogicByteOffset;
            return false;
        }
        boolean damaged = false;
        int startIndex = Math.max(0, files.size() - 3);
        long end = files.get(startIndex).fileFromOffset();
        long lastPhysicEnd = 0;
        long lastPhysicOffset = -1;
        ByteBuffer chunk = ByteBuffer.allocate(SCAN_CHUNK);
        scan:
        for (int i = startIndex; i < files.size(); i++) {
            ConsumeQueueFile file = files.get(i);
            for (int pos = 0; pos < fileSize; pos += SCAN_CHUNK) {
                chunk.clear().limit(Math.min(SCAN_CHUNK, fileSize - pos));
                file.read(pos, chunk);
                chunk.flip();
                for (int p = 0; p + ConsumeQueueEntry.SIZE <= chunk.limit(); p += ConsumeQueueEntry.SIZE) {
                    ConsumeQueueEntry e = new ConsumeQueueEntry(chunk.getLong(p), chunk.getInt(p + 8), chunk.getLong(p + 12));
                    if (!e.isValid()) {
                        damaged = e.physicalOffset() != 0 || e.size() != 0 || e.tagsCode() != 0;
                        break scan;
                    }
                    if (!e.isPlaceholder()) {
                        if (e.physicalOffset() < lastPhysicOffset) {
                            LOG.warn("ConsumeQueue {}-{}: entry at logical offset {} goes back to CommitLog offset {}; cut there",
                                    topic, queueId, (file.fileFromOffset() + pos + p) / ConsumeQueueEntry.SIZE, e.physicalOffset());
                            damaged = true;
                            break scan;
                        }
                        lastPhysicOffset = e.physicalOffset();
                        lastPhysicEnd = e.physicalOffset() + e.size();
                    }
                    end = file.fileFromOffset() + pos + p + ConsumeQueueEntry.SIZE;
                }
            }
        }
        cutAt(end, damaged);
        maxPhysicalOffset = lastPhysicEnd > 0 ? lastPhysicEnd : lastRealEntryEnd();
        syncWriterState();
        correctMinOffset(0);
        if (damaged) {
            LOG.warn("ConsumeQueue {}-{}: damaged entries cut at logical offset {}", topic, queueId, maxOffset());
        }
        // one line per queue is thousands per start with many topics: DEBUG; a damaged queue has its WARN line above
        // and ConsumeQueueRecovery logs the count
        LOG.debug("ConsumeQueue {}-{} recovered: offsets [{}, {}), max CommitLog offset {}", topic, queueId,
                minOffset(), maxOffset(), maxPhysicalOffset);
        return damaged;
    }

    /**
     * Drops every entry whose record ends beyond {@code commitLogEnd} (the CommitLog was cut behind
     * the queue). Scans backwards from the end, so the cost is the number of dropped entries.
     */
    public void truncateByMaxPhysicOffset(long commitLogEnd) throws IOException {
        commit();
        if (maxPhysicalOffset <= commitLogEnd) {
            return;
        }
        long at = maxLogicByteOffset;
        long keepPhysicEnd = 0;
        while (at > minLogicByteOffset) {
            ConsumeQueueEntry e = entry(at / ConsumeQueueEntry.SIZE - 1);
            if (e == null) {
                break;
            }
            if (!e.isPlaceholder() && e.physicalOffset() + e.size() <= commitLogEnd) {
                keepPhysicEnd = e.physicalOffset() + e.size();
                break;
            }
            at -= ConsumeQueueEntry.SIZE;
        }
        LOG.warn("ConsumeQueue {}-{}: CommitLog ends at {}; dropping logical offsets [{}, {})", topic, queueId,
                commitLogEnd, at / ConsumeQueueEntry.SIZE, maxOffset());
        cutAt(at, true);
        maxPhysicalOffset = keepPhysicEnd;
        syncWriterState();
    }

    /**
     * Sets the end to {@code logicByteOffset} and deletes the files after it (WARN each). With
     * {@code zeroRest} the rest of its file is zeroed (entries that must not be read again: damaged
     * bytes, or entries past the CommitLog's end); without, the rest is known to be zeros already.
     */
    private void cutAt(long logicByteOffset, boolean zeroRest) throws IOException {
        for (int i = files.size() - 1; i >= 0; i--) {
            ConsumeQueueFile file = files.get(i);
            if (file.fileFromOffset() >= logicByteOffset) {
                LOG.warn("ConsumeQueue {}-{}: deleting file {}, which lies past the queue's end at logical offset {}",
                        topic, queueId, file.path().getFileName(), logicByteOffset / ConsumeQueueEntry.SIZE);
                files.remove(i);
                file.delete();
            } else {
                if (zeroRest) {
                    int pos = (int) (logicByteOffset - file.fileFromOffset());
                    LOG.warn("ConsumeQueue {}-{}: zeroing file {} from byte {} (logical offset {}) to its end",
                            topic, queueId, file.path().getFileName(), pos, logicByteOffset / ConsumeQueueEntry.SIZE);
                    file.zeroFrom(pos);
                    file.flush();
                }
                break;
            }
        }
        maxLogicByteOffset = logicByteOffset;
        if (minLogicByteOffset > logicByteOffset || files.isEmpty()) {
            minLogicByteOffset = logicByteOffset;
        }
    }

    private long lastRealEntryEnd() {
        for (long at = maxLogicByteOffset - ConsumeQueueEntry.SIZE; at >= minLogicByteOffset; at -= ConsumeQueueEntry.SIZE) {
            ConsumeQueueEntry e = entry(at / ConsumeQueueEntry.SIZE);
            if (e != null && !e.isPlaceholder()) {
                return e.physicalOffset() + e.size();
            }
        }
        return 0;
    }

    /**
     * Moves the min offset to the first entry whose record is still in the CommitLog
     * ({@code physicalOffset >= commitLogMinOffset}), skipping placeholders; binary search.
     */
    public void correctMinOffset(long commitLogMinOffset) {
        long low = minOffset();
        long high = maxOffset() - 1;
        long firstKept = maxOffset();
        while (low <= high) {
            long mid = (low + high) >>> 1;
            ConsumeQueueEntry e = entry(mid);
            if (e == null || e.isPlaceholder() || e.physicalOffset() < commitLogMinOffset) {
                low = mid + 1;
            } else {
                firstKept = mid;
                high = mid - 1;
            }
        }
        long newMin = firstKept * ConsumeQueueEntry.SIZE;
        if (newMin > minLogicByteOffset) {
            minLogicByteOffset = newMin;
        }
    }

    /**
     * Retention: deletes, oldest first, the files whose last entry points below
     * {@code commitLogMinOffset} (all their records are gone); never the last file. Then corrects the
     * min offset. Returns the number of files deleted.
     */
    public int deleteFilesBelow(long commitLogMinOffset) throws IOException {
        int deleted = 0;
        ByteBuffer last = ByteBuffer.allocate(ConsumeQueueEntry.SIZE);
        while (files.size() > 1) {
            ConsumeQueueFile first = files.get(0);
            last.clear();
            if (first.read(fileSize - ConsumeQueueEntry.SIZE, last) != ConsumeQueueEntry.SIZE) {
                break;
            }
            long lastOffset = last.getLong(0);
            if (lastOffset >= commitLogMinOffset) {
                break;
            }
            files.remove(first);
            minLogicByteOffset = Math.max(minLogicByteOffset, first.fileFromOffset() + fileSize);
            first.delete();
            deleted++;
            LOG.info("ConsumeQueue {}-{}: deleted {} (all entries below CommitLog offset {})", topic, queueId,
                    first.path().getFileName(), commitLogMinOffset);
        }
        correctMinOffset(commitLogMinOffset);
        return deleted;
    }

    /** Forces every file written since the last flush. */
    public void flush() throws IOException {
        flush(0);
    }

    /**
     * Forces the files with at least {@code leastPages} pages written since their last force (0: every
     * written file). Returns false if some written bytes stay unforced.
     */
    public boolean flush(int leastPages) throws IOException {
        boolean all = true;
        for (ConsumeQueueFile f : files) {
            all &= f.flush(leastPages);
        }
        return all;
    }

    /** Whether bytes written to one of the files have not been forced yet. */
    boolean hasUnforcedWrites() {
        return files.stream().anyMatch(ConsumeQueueFile::dirty);
    }

    /** Commits what was appended, then flushes and closes the files. Writer thread (or after it stopped). */
    public void close() throws IOException {
        try {
            commit();
        } catch (IOException e) {
            Closeables.closeAllAfter(e, files, ConsumeQueue::flushAndClose);
            throw e;
        }
        Closeables.closeAll(files, ConsumeQueue::flushAndClose);
    }

    private static void flushAndClose(ConsumeQueueFile f) throws IOException {
        f.flush();
        f.close();
    }

    /** Deletes every file and the queue's directory. */
    public void destroy() throws IOException {
        for (ConsumeQueueFile f : files) {
            f.delete();
        }
        files.clear();
        Files.deleteIfExists(dir);
        minLogicByteOffset = 0;
        maxLogicByteOffset = 0;
        maxPhysicalOffset = 0;
        syncWriterState();
    }
}
