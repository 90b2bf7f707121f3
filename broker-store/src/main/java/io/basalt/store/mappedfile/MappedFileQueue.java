package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered, contiguous {@link MappedFile}s of one directory (a CommitLog, or one ConsumeQueue):
 * file {@code i + 1} starts where file {@code i} ends. Also tracks the queue-wide
 * {@code committedOffset} and {@code flushedOffset} (global offsets), advanced one file per call.
 *
 * <p>Threads: files are created, truncated and appended to by one writer (the CommitLog put lock or
 * the ConsumeQueue dispatcher); {@link #commit(int)} by one committer; {@link #flush(int)} by one
 * flusher; lookups and {@link #deleteExpiredFilesByTime} from any thread. The file list is an
 * immutable snapshot replaced on each change, so readers never see it half-changed.
 */
public final class MappedFileQueue {
    private static final Logger LOG = LoggerFactory.getLogger(MappedFileQueue.class);
    private static final int DELETE_FILES_BATCH_MAX = 10;

    private final Path dir;
    private final int fileSize;
    private final AllocateMappedFileService allocator;
    private final MappedFile.Allocation allocation;
    /** Immutable snapshot, replaced under {@code this} on every change. */
    private volatile List<MappedFile> files = List.of();
    private volatile long committedOffset;
    private volatile long flushedOffset;
    private volatile long storeTimestamp;
    private final AtomicLong deletedBeforeExpiry = new AtomicLong();

    /**
     * @param allocatorOrNull creates files in the background (the CommitLog's queue); null creates
     *                        them inline on the writer's thread (ConsumeQueue, index)
     */
    public MappedFileQueue(Path dir, int fileSize, AllocateMappedFileService allocatorOrNull) {
        this(dir, fileSize, allocatorOrNull, MappedFile.Allocation.ZERO_FILL);
    }

    /** @param allocation how files are allocated and mapped (loaded files are mapped the same way) */
    public MappedFileQueue(Path dir, int fileSize, AllocateMappedFileService allocatorOrNull,
                           MappedFile.Allocation allocation) {
        if (fileSize <= 0) {
            throw new IllegalArgumentException("fileSize must be positive: " + fileSize);
        }
        this.dir = dir;
        this.fileSize = fileSize;
        this.allocator = allocatorOrNull;
        this.allocation = allocation;
    }

    public Path dir() {
        return dir;
    }

    public int fileSize() {
        return fileSize;
    }

    /**
     * Maps every file of the directory (creating the directory if missing), positions set to full;
     * recovery then sets the real positions. Removes leftovers of interrupted deletes
     * ({@code .delete}) and allocations ({@code .alloc}). Refuses, naming the file and the problem, a
     * name that is not a 20-digit offset, a size other than the configured one, and a gap or overlap
     * between consecutive files; nothing stays mapped after a refusal.
     */
    public void load() throws IOException {
        if (!files.isEmpty()) {
            throw new IllegalStateException(dir + " is already loaded");
        }
        Files.createDirectories(dir);
        TreeMap<Long, Path> byOffset = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.endsWith(StoreFiles.DELETE_SUFFIX) || name.endsWith(MappedFile.ALLOCATING_SUFFIX)) {
                    LOG.info("removing leftover {}", entry);
                    Files.delete(entry);
                    continue;
                }
                if (Files.isDirectory(entry)) {
                    throw new IOException("loading " + dir + ": " + name + " is a directory, expected only "
                        + "files named by a 20-digit offset");
                }
                long offset = StoreFiles.parseFileName(name);
                if (offset < 0) {
                    throw new IOException("loading " + dir + ": file " + name + ": name is not a 20-digit offset");
                }
                long size = Files.size(entry);
                if (size != fileSize) {
                    throw new IOException("loading " + dir + ": file " + name + ": size " + size
                        + " bytes, expected " + fileSize + " (check the configured file size)");
                }
                byOffset.put(offset, entry);
            }
        }
        long expected = -1;
        for (var e : byOffset.entrySet()) {
            if (expected >= 0 && e.getKey() != expected) {
                throw new IOException("loading " + dir + ": file " + e.getValue().getFileName() + " starts at offset "
                    + e.getKey() + " but the previous file ends at " + expected
                    + (e.getKey() > expected ? " (files are missing)" : " (files overlap)"));
            }
            expected = e.getKey() + fileSize;
        }
        List<MappedFile> loaded = new ArrayList<>();
        try {
            for (Path file : byOffset.values()) {
                MappedFile mappedFile = MappedFile.open(file, fileSize, null, null, allocation, 0);
                mappedFile.setPositions(fileSize, fileSize, fileSize);
                loaded.add(mappedFile);
            }
        } catch (IOException | RuntimeException e) {
            loaded.forEach(MappedFile::close);
            throw e;
        }
        files = List.copyOf(loaded);
        LOG.info("loaded {} files from {}", loaded.size(), dir);
    }

    public MappedFile lastFile() {
        List<MappedFile> snapshot = files;
        return snapshot.isEmpty() ? null : snapshot.get(snapshot.size() - 1);
    }

    public MappedFile firstFile() {
        List<MappedFile> snapshot = files;
        return snapshot.isEmpty() ? null : snapshot.get(0);
    }

    /** An unmodifiable snapshot of the files, in offset order. */
    public List<MappedFile> files() {
        return files;
    }

    /** {@link MappedFile#giveBackReadPages()} for every file: what readers faulted in leaves this process. */
    public void giveBackReadPages() {
        for (MappedFile file : files) {
            file.giveBackReadPages();
        }
    }

    private synchronized void addFile(MappedFile file) {
        List<MappedFile> next = new ArrayList<>(files);
        next.add(file);
        files = List.copyOf(next);
    }

    private synchronized void removeFile(MappedFile file) {
        List<MappedFile> next = new ArrayList<>(files);
        next.remove(file);
        files = List.copyOf(next);
    }

    private synchronized List<MappedFile> removeAll() {
        List<MappedFile> all = files;
        files = List.of();
        return all;
    }

    /**
     * The last file if it has room, else a new file after it; with no file yet, a new one at
     * {@code startOffsetIfEmpty} rounded down to a multiple of the file size. Writer thread only.
     * With an allocator this waits up to its timeout and throws when the file could not be created
     * (callers report CREATE_MAPPED_FILE_FAILED).
     */
    public MappedFile lastFileOrCreate(long startOffsetIfEmpty) throws IOException {
        MappedFile last = lastFile();
        long createOffset;
        if (last == null) {
            createOffset = startOffsetIfEmpty - startOffsetIfEmpty % fileSize;
        } else if (last.isFull()) {
            createOffset = last.fileFromOffset() + fileSize;
        } else {
            return last;
        }
        Path next = dir.resolve(StoreFiles.fileName(createOffset));
        MappedFile created;
        if (allocator != null) {
            created = allocator.allocate(next, dir.resolve(StoreFiles.fileName(createOffset + fileSize)), fileSize);
        } else {
            Files.createDirectories(dir);
            created = MappedFile.open(next, fileSize, null, null, allocation, 0);
        }
        addFile(created);
        return created;
    }

    /**
     * The file holding {@code offset}; if none does, the first file when
     * {@code returnFirstIfNotFound}, else null.
     */
    public MappedFile findFileByOffset(long offset, boolean returnFirstIfNotFound) {
        List<MappedFile> snapshot = files();
        if (snapshot.isEmpty()) {
            return null;
        }
        MappedFile first = snapshot.get(0);
        long index = offset / fileSize - first.fileFromOffset() / fileSize;
        if (offset >= first.fileFromOffset() && index < snapshot.size()) {
            MappedFile candidate = snapshot.get((int) index);
            if (contains(candidate, offset)) {
                return candidate;
            }
        }
        for (MappedFile file : snapshot) {
            if (contains(file, offset)) {
                return file;
            }
        }
        return returnFirstIfNotFound ? first : null;
    }

    private boolean contains(MappedFile file, long offset) {
        return offset >= file.fileFromOffset() && offset < file.fileFromOffset() + fileSize;
    }

    /** Base offset of the first file, or -1 when there is none. */
    public long minOffset() {
        MappedFile first = firstFile();
        return first == null ? -1 : first.fileFromOffset();
    }

    /** End of what readers may see: last file's base + its readPosition (0 when empty). */
    public long maxOffset() {
        MappedFile last = lastFile();
        return last == null ? 0 : last.fileFromOffset() + last.readPosition();
    }

    /** End of what was appended: last file's base + its wrotePosition (0 when empty). */
    public long appendedOffset() {
        MappedFile last = lastFile();
        return last == null ? 0 : last.fileFromOffset() + last.wrotePosition();
    }

    public long committedOffset() {
        return committedOffset;
    }

    public long flushedOffset() {
        return flushedOffset;
    }

    /**
     * After recovery: every byte before {@code end} is a valid record on disk and nothing after it is
     * kept. The file holding {@code end}, if any, resumes writing there (its write, commit and flush
     * positions are set to it) and the queue's committed and flushed offsets become {@code end}. With an
     * allocator, that file is the one it keeps warm, and the next file is created ahead of need.
     * Recovery only, before any writer starts.
     */
    public void resumeAt(long end) {
        for (MappedFile file : files()) {
            if (end >= file.fileFromOffset() && end < file.fileFromOffset() + fileSize) {
                int position = (int) (end - file.fileFromOffset());
                file.setPositions(position, position, position);
                if (allocator != null && file == lastFile()) {
                    allocator.resumeWriting(file, dir.resolve(StoreFiles.fileName(file.fileFromOffset() + fileSize)));
                }
            }
        }
        committedOffset = end;
        flushedOffset = end;
    }

    /** Store timestamp of the last file as of the last thorough ({@code leastPages == 0}) flush. */
    public long storeTimestamp() {
        return storeTimestamp;
    }

    /**
     * Commits the file holding {@code committedOffset} (see {@link MappedFile#commit(int)}) and moves
     * {@code committedOffset}. Returns true when it moved. Committer thread only.
     */
    public boolean commit(int leastPages) throws IOException {
        MappedFile file = findFileByOffset(committedOffset, committedOffset == 0);
        if (file == null) {
            return false;
        }
        long where = file.fileFromOffset() + file.commit(leastPages);
        boolean moved = where != committedOffset;
        committedOffset = where;
        return moved;
    }

    /**
     * Flushes the file holding {@code flushedOffset} (see {@link MappedFile#flush(int)}) and moves
     * {@code flushedOffset} to what that force made durable. Returns true when it moved. An
     * IOException propagates with {@code flushedOffset} unchanged. Flusher thread only.
     */
    public boolean flush(int leastPages) throws IOException {
        MappedFile file = findFileByOffset(flushedOffset, flushedOffset == 0);
        if (file == null) {
            return false;
        }
        long timestamp = file.storeTimestamp();
        long where = file.fileFromOffset() + file.flush(leastPages);
        boolean moved = where != flushedOffset;
        flushedOffset = where;
        if (leastPages == 0) {
            storeTimestamp = timestamp;
        }
        return moved;
    }

    /** True when no file of the queue holds a byte (none at all, or only empty ones). */
    public boolean holdsNoBytes() {
        for (MappedFile file : files) {
            if (file.wrotePosition() != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves the start of a queue that holds no byte yet to {@code offset}, a file start: its empty
     * files, and those the allocator made ahead of need, are deleted, and the next
     * {@link #lastFileOrCreate} creates the file at {@code offset}. An empty slave that replicates
     * from its master's oldest retained offset starts this way. Writer thread only.
     *
     * @throws IllegalArgumentException when {@code offset} is not a file start
     * @throws IllegalStateException when a file holds bytes
     */
    public void restartEmptyAt(long offset) {
        if (offset < 0 || offset % fileSize != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not the start of a " + fileSize + "-byte file");
        }
        for (MappedFile file : files) {
            if (file.wrotePosition() != 0) {
                throw new IllegalStateException(file.path() + " holds " + file.wrotePosition() + " bytes");
            }
        }
        if (allocator != null) {
            allocator.discardUnclaimed();
        }
        for (MappedFile file : removeAll()) {
            file.destroy(1000);
        }
        committedOffset = offset;
        flushedOffset = offset;
        LOG.info("{} holds no byte; it now starts at offset {}", dir, offset);
    }

    /**
     * Recovery: keeps {@code [.., offset)}. Zeroes the rest of the file holding {@code offset} and
     * deletes every file after it (renamed to {@code .delete} first); lowers committedOffset and
     * flushedOffset to {@code offset} if they were beyond it.
     */
    public void truncateDirtyFiles(long offset) throws IOException {
        List<MappedFile> willRemove = new ArrayList<>();
        for (MappedFile file : files) {
            long fileTail = file.fileFromOffset() + fileSize;
            if (fileTail <= offset) {
                continue;
            }
            if (offset >= file.fileFromOffset()) {
                file.truncateTo((int) (offset - file.fileFromOffset()));
            } else {
                willRemove.add(file);
            }
        }
        for (MappedFile file : willRemove) {
            file.destroy(1000);
            removeFile(file);
            LOG.info("truncated {}: removed {} beyond offset {}", dir, file.path().getFileName(), offset);
        }
        committedOffset = Math.min(committedOffset, offset);
        flushedOffset = Math.min(flushedOffset, offset);
    }

    /**
     * Deletes, oldest first, files (never the last one) last modified more than {@code expiredMillis}
     * ago, or all but the last when {@code cleanImmediately}; at most 10 per call, pausing
     * {@code intervalMs} between two deletes to spread the I/O. Stops at the first file that is not
     * expired or that a reader still holds, so the queue stays contiguous. Returns the number deleted.
     */
    public int deleteExpiredFilesByTime(long expiredMillis, long intervalMs, long destroyWaitMs,
                                        boolean cleanImmediately) {
        return deleteExpiredFilesByTime(expiredMillis, intervalMs, destroyWaitMs, cleanImmediately, "cleanImmediately");
    }

    /**
     * As {@link #deleteExpiredFilesByTime(long, long, long, boolean)}; each file deleted before it
     * expired (only with {@code cleanImmediately}) gets a WARN line naming it, its age and
     * {@code whyEarly}, and is counted in {@link #deletedBeforeExpiry()}.
     */
    public int deleteExpiredFilesByTime(long expiredMillis, long intervalMs, long destroyWaitMs,
                                        boolean cleanImmediately, String whyEarly) {
        List<MappedFile> snapshot = files();
        int deleted = 0;
        for (int i = 0; i < snapshot.size() - 1 && deleted < DELETE_FILES_BATCH_MAX; i++) {
            MappedFile file = snapshot.get(i);
            boolean expired = System.currentTimeMillis() >= file.lastModifiedMillis() + expiredMillis;
            if (!(expired || cleanImmediately) || file.isHeld()) {
                break;
            }
            if (deleted > 0 && intervalMs > 0 && !pause(intervalMs)) {
                break;
            }
            file.destroy(destroyWaitMs);
            removeFile(file);
            deleted++;
            if (!expired) {
                deletedBeforeExpiry.incrementAndGet();
                LOG.warn("Deleted {} from {} before it expired (last modified {} s ago, kept for {} s): {}",
                    file.path().getFileName(), dir, (System.currentTimeMillis() - file.lastModifiedMillis()) / 1000,
                    expiredMillis / 1000, whyEarly);
            }
        }
        if (deleted > 0) {
            LOG.info("deleted {} expired files from {}", deleted, dir);
        }
        return deleted;
    }

    /**
     * Deletes, oldest first, files (never the last one) while {@code deletable} says so and no reader
     * holds them; stops at the first file kept, so the queue stays contiguous. Returns the number deleted.
     */
    public int deleteFirstFilesWhile(java.util.function.Predicate<MappedFile> deletable, long destroyWaitMs) {
        List<MappedFile> snapshot = files();
        int deleted = 0;
        for (int i = 0; i < snapshot.size() - 1; i++) {
            MappedFile file = snapshot.get(i);
            if (file.isHeld() || !deletable.test(file)) {
                break;
            }
            file.destroy(destroyWaitMs);
            removeFile(file);
            deleted++;
        }
        if (deleted > 0) {
            LOG.info("deleted {} files from {}", deleted, dir);
        }
        return deleted;
    }

    /** Files deleted before they expired (forced clean under disk pressure) since this queue was built. */
    public long deletedBeforeExpiry() {
        return deletedBeforeExpiry.get();
    }

    /** I/O pacing between two deletes (not coordination); false if interrupted. */
    private static boolean pause(long intervalMs) {
        try {
            Thread.sleep(intervalMs);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Unmaps every file (each once its readers let go), keeping them on disk. */
    public void shutdown() {
        for (MappedFile file : removeAll()) {
            file.close();
        }
    }

    /** Deletes every file and the directory if it is then empty. */
    public void destroy() {
        for (MappedFile file : removeAll()) {
            file.destroy(1000);
        }
        flushedOffset = 0;
        committedOffset = 0;
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            LOG.warn("could not remove directory {}: {}", dir, e.toString());
        }
    }
}
