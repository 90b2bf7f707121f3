package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.basalt.common.io.Directories;
import io.basalt.store.FlushDiskType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fixed-size file of a {@link MappedFileQueue}, mapped whole, named by the 20-digit zero-padded
 * global offset of its first byte ({@code 00000000001073741824}).
 *
 * <p>Positions inside the file: {@code wrotePosition >= committedPosition >= flushedPosition}.
 * Without a write buffer, appends are encoded straight into the mapping and committed equals wrote.
 * With a write buffer (transient store pool), appends land in the buffer, {@link #commit(int)} writes
 * them to the FileChannel, and readers only see committed bytes; the buffer goes back to its pool
 * once the file is full and committed.
 *
 * <p>Threads: one appender at a time ({@link #append}, {@link #appendRaw}, under the CommitLog's
 * put lock), one committer, one flusher; {@link #select} from any thread. A selected buffer keeps
 * the mapping alive (reference count): {@link #close()} and {@link #destroy(long)} never unmap under
 * a reader, the last {@link SelectedBuffer#release()} does.
 *
 * <p>Page-cache discipline (why small flushes stay small): a store through a mapping dirties the whole
 * page-cache folio it lands in, and msync/fdatasync then write the whole folio. Files preallocated
 * with large writes, or faulted in with readahead, get large folios, and a 4 KiB put + force then
 * writes up to a whole folio; files preallocated one 4 KiB page per write, or faulted in after
 * {@code madvise(MADV_RANDOM)}, keep 4 KiB folios and a small flush writes about 4 KiB (figures in
 * {@code docs/measurements.md#folios}). So under SYNC_FLUSH new files are zero-filled one 4 KiB page
 * per write and the mapping is advised MADV_RANDOM; under ASYNC_FLUSH, whose flushes are large, files
 * are fallocated and keep large folios, which halves the disk traffic ({@link Allocation}), and a periodic
 * flush forces whole folios only, so the one being filled is written once ({@link #flush(int)}). {@link #flush(int)} uses
 * {@code MappedByteBuffer.force(index, length)} (msync of the dirty range only; it writes the same
 * device bytes as {@code FileChannel.force(false)}).
 */
public final class MappedFile implements SelectedBuffer.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(MappedFile.class);

    public static final int OS_PAGE_SIZE = 4096;
    /**
     * How much of a file ahead of its writer {@link #warm()} and {@link #keepWarm()} keep faulted in and
     * locked, and how much behind the writer stays mapped for the consumers of the newest messages
     * (RSS with and without the window: docs/measurements.md#warm-window).
     */
    public static final int WARM_WINDOW = 64 << 20;
    /** The largest page-cache folio (PMD size; see docs/measurements.md#folios). */
    private static final int LARGEST_FOLIO = 2 << 20;
    static final String ALLOCATING_SUFFIX = ".alloc";
    private static final int ENOSPC = 28;
    private static final AtomicInteger LIVE_MAPPINGS = new AtomicInteger();
    /** Where warm() leaves what it read, so the page-touching reads cannot be optimised away. */
    private static volatile int warmSink;

    private final Path path;
    private final long fileFromOffset;
    private final int fileSize;
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final boolean usesWriteBuffer;
    /**
     * Appends go to a mapping whose page cache uses large folios (ASYNC_FLUSH's fallocated files): a periodic flush
     * then forces whole folios only, see {@link #flush(int)}.
     */
    private final boolean flushesWholeFolios;
    private final AtomicReference<ByteBuffer> writeBuffer;
    private final Consumer<ByteBuffer> writeBufferReturn;

    private volatile int wrotePosition;
    private volatile int committedPosition;
    private volatile int flushedPosition;
    private volatile long storeTimestamp;

    /** 1 for the owner, plus one per held {@link SelectedBuffer} and per operation in progress. */
    private final AtomicInteger refCount = new AtomicInteger(1);
    private final AtomicBoolean ownerReleased = new AtomicBoolean();
    private final CompletableFuture<Void> cleanedUp = new CompletableFuture<>();
    private volatile boolean deleteRequested;
    private volatile Path currentPath;
    private boolean deleted;
    private volatile boolean locked;
    /** Set when an mlock failed (RLIMIT_MEMLOCK, no JNA): the window is then faulted in but not locked. */
    private boolean lockFailed;
    /** End of the pages warmed so far; written by the warming thread only. */
    private volatile int warmedTo;
    /** End of the warmed pages given back so far (guarded by this). */
    private int givenBackTo;
    /** Set by {@link #select}: a reader may have faulted pages in since {@link #giveBackReadPages()} last ran. */
    private volatile boolean selectedSinceGiveBack;
    /** End of the range {@link #giveBackReadPages()} last dropped (guarded by this). */
    private int readPagesGivenBackTo;
    private volatile IOHook beforeForce;

    /** An action that may fail with an IOException; a test seam in front of force(). */
    @FunctionalInterface
    interface IOHook {
        void run() throws IOException;
    }

    private MappedFile(Path path, long fileFromOffset, int fileSize, FileChannel channel, MappedByteBuffer mapped,
                       ByteBuffer writeBuffer, Consumer<ByteBuffer> writeBufferReturn, boolean flushesWholeFolios) {
        this.path = path;
        this.currentPath = path;
        this.fileFromOffset = fileFromOffset;
        this.fileSize = fileSize;
        this.channel = channel;
        this.mapped = mapped;
        this.usesWriteBuffer = writeBuffer != null;
        this.flushesWholeFolios = flushesWholeFolios && writeBuffer == null;
        this.writeBuffer = new AtomicReference<>(writeBuffer);
        this.writeBufferReturn = writeBufferReturn;
    }

    /**
     * Maps {@code file}, creating it first if it does not exist. A new file gets all its blocks
     * allocated (zeros written one page per write, then forced) under a temporary name, is renamed to
     * its final name and its directory is fsynced, so a full disk fails here and never as a SIGBUS on
     * a later write into the mapping. An existing file must have exactly {@code fileSize} bytes.
     *
     * @param writeBufferOrNull a direct buffer of at least {@code fileSize} bytes that appends go to
     *                          first (owned by the caller), or null to append into the mapping
     */
    public static MappedFile open(Path file, int fileSize, ByteBuffer writeBufferOrNull) throws IOException {
        return open(file, fileSize, writeBufferOrNull, null, Allocation.ZERO_FILL, 0);
    }

    /**
     * How a file gets its blocks and how its mapping uses the page cache, by flush policy. Either way
     * the blocks are real, so a full disk fails at allocation, never on a write through the mapping.
     */
    public enum Allocation {
        /**
         * SYNC_FLUSH: zeroes written one page per write and the mapping advised MADV_RANDOM. A flush then
         * overwrites written blocks (fdatasync writes no metadata) in 4 KiB folios (a small force writes
         * a few KiB, not a 2 MiB folio; see the class comment).
         */
        ZERO_FILL,
        /**
         * ASYNC_FLUSH: fallocate (zero-fill where unsupported) and default advice. Each byte reaches the
         * disk once, with the data, and large folios make the background writeback cheap; flushes are
         * large, so their granularity does not matter; small appends run faster than with ZERO_FILL
         * (docs/measurements.md#allocation).
         */
        FALLOCATE;

        public static Allocation forFlushDiskType(FlushDiskType type) {
            return type == FlushDiskType.SYNC_FLUSH ? ZERO_FILL : FALLOCATE;
        }
    }

    /**
     * As {@link #open(Path, int, ByteBuffer)}; {@code writeBufferReturn} receives the write buffer once
     * the file is full and committed (or closed); a new file is allocated as {@code allocation} says
     * and forced every {@code allocationForceEveryPages} pages while it is zero-filled (0: once at the end).
     */
    static MappedFile open(Path file, int fileSize, ByteBuffer writeBufferOrNull, Consumer<ByteBuffer> writeBufferReturn,
                           Allocation allocation, int allocationForceEveryPages) throws IOException {
        if (fileSize <= 0) {
            throw new IllegalArgumentException("fileSize must be positive: " + fileSize);
        }
        if (writeBufferOrNull != null && writeBufferOrNull.capacity() < fileSize) {
            throw new IllegalArgumentException("write buffer of " + writeBufferOrNull.capacity()
                + " bytes is smaller than the file size " + fileSize);
        }
        long fileFromOffset = StoreFiles.parseFileName(file.getFileName().toString());
        if (fileFromOffset < 0) {
            throw new IOException("file " + file + ": name is not a 20-digit offset");
        }
        if (!Files.exists(file)) {
            allocate(file, fileSize, allocation, allocationForceEveryPages);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = channel.size();
            if (size != fileSize) {
                throw new IOException("file " + file + ": size " + size + " bytes, expected " + fileSize);
            }
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileSize);
            LIVE_MAPPINGS.incrementAndGet();
            if (allocation == Allocation.ZERO_FILL) {
                // Faults without readahead create 4 KiB folios, so a later small flush writes 4 KiB.
                NativeIO.madvise(mapped, fileSize, NativeIO.MADV_RANDOM);
            }
            return new MappedFile(file, fileFromOffset, fileSize, channel, mapped, writeBufferOrNull, writeBufferReturn,
                allocation == Allocation.FALLOCATE);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel, e);
            throw e;
        }
    }

    /**
     * Gives a new file real blocks (see {@link Allocation}; ENOSPC shows up here), forces it, renames it
     * into place and fsyncs the directory.
     */
    private static void allocate(Path file, int fileSize, Allocation allocation, int forceEveryPages) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ALLOCATING_SUFFIX);
        long startNs = System.nanoTime();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
            if (allocation != Allocation.FALLOCATE || !fallocated(tmp, fileSize)) {
                zeroFill(ch, fileSize, forceEveryPages);
            }
            ch.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw new IOException("allocating " + fileSize + " bytes for " + file + " failed: " + e.getMessage(), e);
        }
        if (Files.exists(file)) {
            Files.delete(tmp);
            throw new IOException("file " + file + " appeared while it was being allocated; not overwriting it");
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        Directories.fsync(file.toAbsolutePath().getParent());
        LOG.info("allocated {} ({} bytes) in {} ms", file, fileSize,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
    }

    /** True once fallocate gave the file its blocks; false where it is unsupported. */
    private static boolean fallocated(Path file, int fileSize) throws IOException {
        int errno = NativeIO.fallocate(file, fileSize);
        if (errno == NativeIO.FALLOCATE_UNSUPPORTED) {
            return false;
        }
        if (errno != 0) {
            throw new IOException("fallocate failed with errno " + errno + (errno == ENOSPC ? " (no space left on device)" : ""));
        }
        return true;
    }

    private static void zeroFill(FileChannel ch, int fileSize, int forceEveryPages) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(OS_PAGE_SIZE);
        int pages = 0;
        for (long pos = 0; pos < fileSize; pos += OS_PAGE_SIZE) {
            zeros.clear().limit((int) Math.min(OS_PAGE_SIZE, fileSize - pos));
            while (zeros.hasRemaining()) {
                ch.write(zeros, pos + zeros.position());
            }
            if (forceEveryPages > 0 && ++pages % forceEveryPages == 0) {
                ch.force(false);
            }
        }
    }

    /** Number of mappings currently alive in this JVM (for leak checks in tests and diagnostics). */
    public static int liveMappings() {
        return LIVE_MAPPINGS.get();
    }

    public long fileFromOffset() {
        return fileFromOffset;
    }

    public int fileSize() {
        return fileSize;
    }

    public Path path() {
        return path;
    }

    public int wrotePosition() {
        return wrotePosition;
    }

    public int committedPosition() {
        return usesWriteBuffer ? committedPosition : wrotePosition;
    }

    public int flushedPosition() {
        return flushedPosition;
    }

    /** Highest position readers may see: committed when appends go through a write buffer, else wrote. */
    public int readPosition() {
        return usesWriteBuffer ? committedPosition : wrotePosition;
    }

    public boolean isFull() {
        return wrotePosition == fileSize;
    }

    /** True while appends land in a write buffer that has not been returned yet. */
    public boolean hasWriteBuffer() {
        return writeBuffer.get() != null;
    }

    /** True while the file is open and not being closed or destroyed. */
    public boolean isAvailable() {
        return !ownerReleased.get();
    }

    /** True when a reader (or a running flush) holds the mapping. */
    public boolean isHeld() {
        return refCount.get() > (ownerReleased.get() ? 0 : 1);
    }

    /**
     * Calls {@code cb} with a buffer whose position 0 is this file's wrotePosition and whose limit is
     * the room left, then advances wrotePosition by the returned count. Returns 0 without calling
     * {@code cb} when the file is full.
     */
    public int append(AppendCallback cb) {
        holdOrThrow();
        try {
            int wrote = wrotePosition;
            if (wrote >= fileSize) {
                return 0;
            }
            ByteBuffer target = appendTarget().slice(wrote, fileSize - wrote);
            int written = cb.doAppend(fileFromOffset + wrote, target);
            if (written < 0 || written > fileSize - wrote) {
                throw new IllegalStateException("append callback reported " + written + " bytes with "
                    + (fileSize - wrote) + " bytes left in " + path);
            }
            wrotePosition = wrote + written;
            return written;
        } finally {
            release();
        }
    }

    /** Copies {@code data}'s remaining bytes at wrotePosition; false (nothing written) if they do not fit. */
    public boolean appendRaw(ByteBuffer data) {
        holdOrThrow();
        try {
            int wrote = wrotePosition;
            int length = data.remaining();
            if (length > fileSize - wrote) {
                return false;
            }
            appendTarget().put(wrote, data, data.position(), length);
            data.position(data.position() + length);
            wrotePosition = wrote + length;
            return true;
        } finally {
            release();
        }
    }

    private ByteBuffer appendTarget() {
        ByteBuffer buffer = writeBuffer.get();
        return buffer != null ? buffer : mapped;
    }

    /**
     * Writes the write buffer's {@code [committed, wrote)} to the FileChannel (page cache) when at
     * least {@code leastPages} pages are pending (any byte when 0, always when the file is full), and
     * returns the buffer to its pool once the file is full and committed. Without a write buffer this
     * does nothing. Returns the committed position. On IOException the position does not move.
     */
    public int commit(int leastPages) throws IOException {
        if (!usesWriteBuffer) {
            return wrotePosition;
        }
        ByteBuffer buffer = writeBuffer.get();
        int committed = committedPosition;
        if (buffer == null) {
            return committed;
        }
        int wrote = wrotePosition;
        // The hold keeps the buffer from going back to the pool (close) while it is written out.
        if (!isAbleToWriteOut(leastPages, committed, wrote) || !hold()) {
            return committed;
        }
        try {
            ByteBuffer pending = buffer.slice(committed, wrote - committed);
            while (pending.hasRemaining()) {
                channel.write(pending, committed + (long) pending.position());
            }
            committedPosition = wrote;
            if (wrote == fileSize) {
                returnWriteBuffer();
            }
            return wrote;
        } finally {
            release();
        }
    }

    /**
     * Forces what readers can see ({@link #readPosition()}) to disk when at least {@code leastPages}
     * pages are dirty (any byte when 0, always when the file is full). flushedPosition advances only
     * after the force returned; an IOException propagates and leaves flushedPosition where it was.
     * Returns the flushed position.
     *
     * <p>In a file with large folios, a periodic flush ({@code leastPages > 0}) that has whole folios to force
     * stops at the last folio boundary: forcing the folio the writer is still filling writes all of it, and the
     * writer dirties it again at once, so each flush would write up to 2 MiB again (3 to 9 device bytes per
     * byte appended at 20 MB/s, docs/measurements.md#whole-folios). The rest waits for the next round, by which it is
     * whole or is all there is to force. A thorough flush (0) and a full file force everything.
     */
    public int flush(int leastPages) throws IOException {
        int flushed = flushedPosition;
        int target = flushTarget(leastPages, flushed);
        if (!isAbleToWriteOut(leastPages, flushed, target) || !hold()) {
            return flushed;
        }
        try {
            IOHook hook = beforeForce;
            if (hook != null) {
                hook.run();
            }
            if (usesWriteBuffer) {
                // The bytes went through write(): fdatasync writes the dirty blocks only.
                channel.force(false);
            } else {
                forceMapped(flushed, target - flushed);
            }
            flushedPosition = target;
            if (target == fileSize) {
                onWritingDone();
            }
            return target;
        } finally {
            release();
        }
    }

    private void forceMapped(int from, int length) throws IOException {
        try {
            mapped.force(from, length);
        } catch (UncheckedIOException e) {
            // MappedByteBuffer.force wraps the msync failure; surface it as what it is.
            throw new IOException("force of " + path + " [" + from + ", " + (from + length) + ") failed", e.getCause());
        }
    }

    /** Where a flush with {@code leastPages} stops: the readable end, or the last folio boundary (see flush). */
    private int flushTarget(int leastPages, int flushed) {
        int readable = readPosition();
        if (!flushesWholeFolios || leastPages <= 0 || readable == fileSize) {
            return readable;
        }
        int wholeFolios = (int) Alignment.down(readable, LARGEST_FOLIO);
        return wholeFolios > flushed ? wholeFolios : readable;
    }

    /** Pending bytes, and at least {@code leastPages} pages of them unless 0 or the file is full. */
    private boolean isAbleToWriteOut(int leastPages, int from, int to) {
        if (to <= from) {
            return false;
        }
        if (leastPages <= 0 || to == fileSize) {
            return true;
        }
        return to / OS_PAGE_SIZE - from / OS_PAGE_SIZE >= leastPages;
    }

    /**
     * A read-only, reference-counted view of {@code [position, position + size)}, or null if that is
     * not entirely below {@link #readPosition()} or the file is closing. Release it when done.
     */
    public SelectedBuffer select(int position, int size) {
        if (position < 0 || size <= 0 || (long) position + size > readPosition() || !hold()) {
            return null;
        }
        if (!selectedSinceGiveBack) {
            selectedSinceGiveBack = true;
        }
        return new SelectedBuffer(this, fileFromOffset + position, mapped.slice(position, size).asReadOnlyBuffer());
    }

    /** A view of {@code [position, readPosition())}, or null if that is empty. */
    public SelectedBuffer select(int position) {
        return select(position, readPosition() - position);
    }

    /**
     * Sets the positions after recovery scanned the file (before appends resume). A complete file
     * gets normal readahead back; for one that is not, the page cache of its unwritten tail is reset,
     * see {@link #resetTailPageCache(int)}.
     */
    void setPositions(int wrote, int committed, int flushed) {
        if (wrote < committed || committed < flushed || flushed < 0 || wrote > fileSize) {
            throw new IllegalArgumentException("positions must satisfy 0 <= flushed <= committed <= wrote <= "
                + fileSize + ": " + flushed + ", " + committed + ", " + wrote);
        }
        wrotePosition = wrote;
        committedPosition = committed;
        flushedPosition = flushed;
        if (!hold()) {
            return;
        }
        try {
            if (flushed == fileSize) {
                // A loaded, complete file is only read from now on: readahead serves catching-up consumers.
                onWritingDone();
            } else if (flushed == wrote) {
                resetTailPageCache(wrote);
            }
        } finally {
            release();
        }
    }

    /**
     * Recovery reads a file with read() or readahead faults, which fill the page cache with large
     * folios; appends through the mapping would then dirty, and every small flush write, up to
     * 2 MiB (docs/measurements.md#tail-reset).
     * So the clean cache from the 2 MiB boundary below {@code wrote} to the end is dropped (our page
     * table entries first, then the page cache), and later faults bring it back in 4 KiB pages
     * (MADV_RANDOM). Only clean pages go; without JNA this does nothing.
     */
    private void resetTailPageCache(int wrote) {
        if (locked || !NativeIO.isAvailable()) {
            return;
        }
        long from = Alignment.down(wrote, LARGEST_FOLIO);
        long length = fileSize - from;
        NativeIO.madvise(mapped, from, length, NativeIO.MADV_DONTNEED);
        NativeIO.dropPageCache(path, from, length);
    }

    /**
     * Recovery: zeroes {@code [position, fileSize)} on disk (so no stale record is found there later),
     * forces it, and sets all positions to {@code position}.
     */
    public void truncateTo(int position) throws IOException {
        if (position < 0 || position > fileSize) {
            throw new IllegalArgumentException("position " + position + " outside [0, " + fileSize + "]");
        }
        holdOrThrow();
        try {
            ByteBuffer zeros = ByteBuffer.allocateDirect(OS_PAGE_SIZE);
            long pos = position;
            while (pos < fileSize) {
                // Page-aligned writes after the first, so the zeroing keeps the page cache in 4 KiB folios.
                int length = (int) Math.min(OS_PAGE_SIZE - pos % OS_PAGE_SIZE, fileSize - pos);
                zeros.clear().limit(length);
                while (zeros.hasRemaining()) {
                    channel.write(zeros, pos + zeros.position());
                }
                pos += length;
            }
            channel.force(false);
            setPositions(position, position, position);
        } finally {
            release();
        }
    }

    /** The file's last-modified time in milliseconds (0 if it no longer exists). */
    public long lastModifiedMillis() {
        try {
            return Files.getLastModifiedTime(currentPath).toMillis();
        } catch (NoSuchFileException e) {
            return 0L;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the modification time of " + currentPath, e);
        }
    }

    /** Store timestamp of the last record appended (set by the CommitLog). */
    public long storeTimestamp() {
        return storeTimestamp;
    }

    public void storeTimestamp(long millis) {
        storeTimestamp = millis;
    }

    /**
     * Makes the first appends fast: faults the first {@link #WARM_WINDOW} bytes of the mapping in (reading
     * one byte per page; the blocks are allocated, so this dirties nothing), mlocks them and advises
     * WILLNEED. {@link #keepWarm()} moves that window along with the writer; the lock is undone once the
     * file is full and flushed, or when it is closed.
     */
    public void warm() {
        holdOrThrow();
        try {
            long startNs = System.nanoTime();
            boolean lockedNow = warmTo(Math.min(fileSize, WARM_WINDOW));
            LOG.info("warmed the first {} MiB of {} in {} ms (mlock {})", Math.min(fileSize, WARM_WINDOW) >> 20, path,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs), lockedNow ? "ok" : "not available");
        } finally {
            release();
        }
    }

    /**
     * Starts the warm window at {@code position} of a file written before a restart (mapped by loading, never
     * warmed): the pages from there to a window ahead are faulted in and locked, those below are left alone, and
     * {@link #keepWarm()} moves the window on from there. Does nothing for a file already warmed, or once the file
     * is closing. Called by the thread that keeps the file warm.
     */
    public void warmFrom(int position) {
        if (!hold()) {
            return;
        }
        try {
            synchronized (this) {
                if (warmedTo > 0) {
                    return;
                }
                int start = (int) Alignment.down(position, OS_PAGE_SIZE);
                warmedTo = start;
                givenBackTo = start;
            }
            long startNs = System.nanoTime();
            boolean lockedNow = warmTo((long) position + WARM_WINDOW);
            LOG.info("warmed {} MiB of {} from the writer's position {} in {} ms (mlock {})", (warmedTo - position) >> 20,
                path, position, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs),
                lockedNow ? "ok" : "not available");
        } finally {
            release();
        }
    }

    /**
     * Keeps the pages the writer is about to touch warm and gives back those it has passed, so the
     * process holds about two windows of this file instead of all of it: once the writer is within half
     * a window of the warm end, the next pages up to a window ahead of it are faulted in and locked;
     * pages more than a window behind the writer and already flushed are unlocked and dropped from
     * this process's page tables (MADV_DONTNEED; they stay in the page cache, a reader faults them back).
     * Called by the thread that warmed the file; does nothing once the file is closing.
     */
    public void keepWarm() {
        if (!hold()) {
            return;
        }
        try {
            int writer = wrotePosition;
            if (flushedPosition == fileSize) {
                return;     // written and flushed: onWritingDone() unlocked it
            }
            if (warmedTo > 0 && warmedTo < fileSize && writer + WARM_WINDOW / 2 >= warmedTo) {
                warmTo((long) writer + WARM_WINDOW);
            }
            giveBackBelow(Math.min(flushedPosition, writer - WARM_WINDOW));
        } finally {
            release();
        }
    }

    /**
     * Gives back the pages readers faulted in: consumers, replication and queries read through the mapping,
     * and nothing else drops those pages, so a broker whose consumers read its whole log would otherwise
     * keep all of it in its RSS. Drops from this process's page tables (MADV_DONTNEED) every flushed page
     * outside the writer's reach: all of a file written and flushed, and of the file being written what
     * lies more than a window behind the writer. The pages stay in the page cache (a dirty one stays
     * dirty), so a reader that comes back takes a minor fault. Does nothing for a file no reader selected
     * from since the last call and whose writer has not moved on, or once the file is closing.
     */
    public void giveBackReadPages() {
        if (!hold()) {
            return;
        }
        try {
            int flushed = flushedPosition;
            int end = flushed == fileSize ? fileSize : Math.min(flushed, wrotePosition - WARM_WINDOW);
            end = (int) Alignment.down(end, OS_PAGE_SIZE);
            synchronized (this) {
                if (end <= 0 || (!selectedSinceGiveBack && end <= readPagesGivenBackTo)) {
                    return;
                }
                selectedSinceGiveBack = false;
                // the warm window's pages below end are unlocked first: madvise refuses locked pages
                giveBackBelow(end);
                NativeIO.madvise(mapped, 0, end, NativeIO.MADV_DONTNEED);
                readPagesGivenBackTo = end;
            }
        } finally {
            release();
        }
    }

    /**
     * Faults in, locks and advises WILLNEED {@code [warmedTo, wantedEnd)}, the end rounded up to a page (or
     * cut at the file's end): the next move starts there, and madvise refuses an unaligned start. True if
     * the pages are locked.
     */
    private boolean warmTo(long wantedEnd) {
        int end = (int) Math.min(fileSize, Alignment.up(wantedEnd, OS_PAGE_SIZE));
        int from = warmedTo;
        int sum = 0;
        for (int pos = from; pos < end; pos += OS_PAGE_SIZE) {
            sum += mapped.get(pos);
        }
        warmSink = sum;
        boolean lockedNow;
        synchronized (this) {
            if (lockFailed) {
                lockedNow = false;
            } else {
                lockedNow = NativeIO.mlock(mapped, from, end - from);
                locked = locked || lockedNow;
                lockFailed = !lockedNow;
            }
        }
        NativeIO.madvise(mapped, from, end - from, NativeIO.MADV_WILLNEED);
        warmedTo = end;
        return lockedNow;
    }

    /** Unlocks and unmaps (MADV_DONTNEED) the warmed pages below {@code position}, rounded down to a page. */
    private synchronized void giveBackBelow(int position) {
        int to = (int) Math.min(Alignment.down(position, OS_PAGE_SIZE), warmedTo);
        if (to <= givenBackTo) {
            return;
        }
        if (locked) {
            NativeIO.munlock(mapped, givenBackTo, to - givenBackTo);
        }
        NativeIO.madvise(mapped, givenBackTo, to - givenBackTo, NativeIO.MADV_DONTNEED);
        givenBackTo = to;
    }

    boolean isLocked() {
        return locked;
    }

    /** How far {@link #warm()} and {@link #keepWarm()} have faulted in and locked the file. */
    int warmedTo() {
        return warmedTo;
    }

    /**
     * The writer is done with the file: unlock it, give back what was warmed except the last window
     * (consumers reading the newest messages), and let readahead serve its readers again.
     */
    private synchronized void onWritingDone() {
        if (locked) {
            NativeIO.munlock(mapped, fileSize);
            locked = false;
        }
        if (warmedTo > 0) {
            giveBackBelow(fileSize - WARM_WINDOW);
        }
        NativeIO.madvise(mapped, fileSize, NativeIO.MADV_NORMAL);
    }

    /**
     * Marks the file unavailable, renames it to {@code <name>.delete}, and unmaps and deletes it once
     * no reader holds it. Waits up to {@code waitMs} for the readers; returns true when the file is
     * gone, false when a reader still holds it (the last release then deletes it).
     */
    public boolean destroy(long waitMs) {
        deleteRequested = true;
        renameForDelete();
        releaseOwner();
        if (!cleanedUp.isDone()) {
            try {
                cleanedUp.get(waitMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                LOG.warn("{} is still held by a reader; it is deleted when released", currentPath);
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        deleteIfRequested();
        return true;
    }

    /** Unmaps the file once no reader holds it, without deleting it. Idempotent. */
    public void close() {
        releaseOwner();
    }

    private synchronized void renameForDelete() {
        if (!currentPath.equals(path)) {
            return;
        }
        try {
            currentPath = StoreFiles.renameForDelete(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename " + path + " to " + path.getFileName() + StoreFiles.DELETE_SUFFIX, e);
        }
    }

    private synchronized void deleteIfRequested() {
        if (!deleteRequested || deleted || !cleanedUp.isDone()) {
            return;
        }
        try {
            StoreFiles.deleteAndSync(currentPath);
            deleted = true;
            LOG.info("deleted {}", currentPath);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + currentPath, e);
        }
    }

    private void holdOrThrow() {
        if (!hold()) {
            throw new IllegalStateException(path + " is closed");
        }
    }

    void beforeForce(IOHook hook) {
        this.beforeForce = hook;
    }

    boolean hold() {
        while (true) {
            int count = refCount.get();
            if (count <= 0 || ownerReleased.get()) {
                return false;
            }
            if (refCount.compareAndSet(count, count + 1)) {
                return true;
            }
        }
    }

    @Override
    public void release() {
        int count = refCount.decrementAndGet();
        if (count == 0) {
            cleanUp();
        } else if (count < 0) {
            throw new IllegalStateException(path + " released more often than held");
        }
    }

    private void releaseOwner() {
        if (ownerReleased.compareAndSet(false, true)) {
            release();
        }
    }

    private void cleanUp() {
        try {
            synchronized (this) {
                if (locked) {
                    NativeIO.munlock(mapped, fileSize);
                    locked = false;
                }
            }
            Unmapper.unmap(path.toString(), mapped);
            LIVE_MAPPINGS.decrementAndGet();
            returnWriteBuffer();
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("closing {} failed", path, e);
            }
        } finally {
            cleanedUp.complete(null);
        }
        try {
            deleteIfRequested();
        } catch (UncheckedIOException e) {
            // The last reader let go of a destroyed file; its thread must not fail for a retention error.
            LOG.error("deleting destroyed file {} failed", currentPath, e);
        }
    }

    private void returnWriteBuffer() {
        ByteBuffer buffer = writeBuffer.getAndSet(null);
        if (buffer != null && writeBufferReturn != null) {
            writeBufferReturn.accept(buffer);
        }
    }

    private static void closeQuietly(FileChannel channel, Exception primary) {
        try {
            channel.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "MappedFile[" + path + ", wrote=" + wrotePosition + ", committed=" + committedPosition()
            + ", flushed=" + flushedPosition + "]";
    }
}
