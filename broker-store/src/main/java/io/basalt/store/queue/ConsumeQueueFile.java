package io.basalt.store.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.basalt.store.mappedfile.Alignment;
import io.basalt.store.mappedfile.FileBlockAllocator;
import io.basalt.store.mappedfile.StoreFiles;

/**
 * One ConsumeQueue file: {@code fileSize} bytes of 20-byte entries, named by the 20-digit logical
 * byte offset of its first entry (entry index × 20), as RocketMQ names them.
 *
 * <p>Reads and writes go through positional {@link FileChannel} calls (pread/pwrite) instead of a
 * mapping: a lookup touches one 4 KiB page without mmap fault read-ahead (docs/pain-points.md#pp-17), and a
 * file can be closed and deleted while a reader is in a call; that reader gets
 * {@link ClosedChannelException} and treats the entries as gone, no reader can crash on an unmapped
 * page. One writer (the dispatcher or recovery); any number of readers.
 *
 * <p>The channel is opened lazily, on the first read or write, through the store's
 * {@link OpenFileBudget}, which may close it again while no thread uses it (each read, write and
 * flush pins it for its duration). Closing to make room forces unflushed writes first, so
 * {@link #flush()} keeps its meaning: every write before it is on disk afterwards. Only
 * {@link #close()} and {@link #delete()} close a channel a thread is using, and after them the file
 * never opens again: a reader that sees -1 from {@link #read} still knows the file is gone.
 */
final class ConsumeQueueFile {
    private static final int PAGE = 4096;
    private final Path path;
    private final long fileFromOffset;
    private final int fileSize;
    private final OpenFileBudget budget;

    // Guarded by this: the open channel (null while closed), how many threads use it, and whether
    // close() or delete() ended the file for good.
    private FileChannel channel;
    private int pins;
    private boolean ended;
    private volatile long lastUse;
    private volatile boolean dirty;
    // The byte ranges written since the last force, as page numbers: [dirtyFromPage, dirtyToPage].
    // Written by the one writer, read by the flusher; a force that races a write may undercount by
    // that write, which the next round forces.
    private volatile int dirtyFromPage = Integer.MAX_VALUE;
    private volatile int dirtyToPage = -1;
    /** End of the blocks allocated ahead of the writer (writer thread only; 0 for a loaded file: not known). */
    private int allocatedTo;

    /**
     * How many bytes of blocks a queue file gets allocated at a time, ahead of its writer: 3,276 entries per
     * fallocate, and 64 KiB of disk for a queue that holds a few.
     */
    static final int ALLOCATION_STEP = 64 << 10;

    private ConsumeQueueFile(Path path, long fileFromOffset, int fileSize, OpenFileBudget budget) {
        this.path = path;
        this.fileFromOffset = fileFromOffset;
        this.fileSize = fileSize;
        this.budget = budget;
    }

    /**
     * Loads an existing file without opening it, or creates it with {@code fileSize} zero bytes
     * (unwritten entries are zeros); a file just created keeps its channel open for the writer.
     */
    static ConsumeQueueFile open(Path dir, long fileFromOffset, int fileSize, OpenFileBudget budget) throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(fileFromOffset));
        ConsumeQueueFile file = new ConsumeQueueFile(path, fileFromOffset, fileSize, budget);
        long length = Files.exists(path) ? Files.size(path) : 0;
        if (length == 0) {
            // Same size as RocketMQ's preallocated mapping, so RocketMQ's size check accepts it; sparse beyond the
            // first allocation step, as RocketMQ's files are, so a queue holding a few entries takes a few KiB of disk
            FileChannel ch = file.pin(true);
            try {
                ch.write(ByteBuffer.wrap(new byte[1]), fileSize - 1L);
                // real blocks for the first entries now: a full disk fails this open
                file.allocateThrough(0);
            } catch (IOException e) {
                file.unpin();
                file.delete(); // no half-allocated file left behind: the next attempt creates it afresh
                throw e;
            }
            file.unpin();
            // No fsync of the new file or its directory: with a thousand topics that was two journal commits
            // per queue, on the dispatcher's thread. The first flush of an entry (fdatasync) makes the file and
            // its size durable; a power loss before it leaves no file or an empty one, which open() creates
            // afresh, and recovery re-dispatches the entries from the CommitLog (the checkpoint's
            // logicsMsgTimestamp only covers flushed queues).
        } else if (length != fileSize) {
            throw new IOException("ConsumeQueue file " + path + " has " + length
                    + " bytes, mappedFileSizeConsumeQueue says " + fileSize);
        }
        return file;
    }

    Path path() {
        return path;
    }

    long fileFromOffset() {
        return fileFromOffset;
    }

    int fileSize() {
        return fileSize;
    }

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code position}; returns the bytes read, or -1
     * when the file has been closed (deleted by retention or truncation) under the reader.
     */
    int read(int position, ByteBuffer dst) {
        FileChannel ch;
        try {
            ch = pin(false);
        } catch (IOException e) {
            throw new UncheckedIOException("open of ConsumeQueue file " + path + " failed", e);
        }
        if (ch == null) {
            return -1;
        }
        int total = 0;
        try {
            while (dst.hasRemaining() && position + total < fileSize) {
                int n = ch.read(dst, (long) position + total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        } catch (ClosedChannelException e) {
            forget(ch);
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("read of ConsumeQueue file " + path + " at " + position + " failed", e);
        } finally {
            unpin();
        }
    }

    void write(int position, ByteBuffer src) throws IOException {
        FileChannel ch = pin(false);
        if (ch == null) {
            throw new ClosedChannelException();
        }
        try {
            if (position + src.remaining() > allocatedTo) {
                allocateThrough(position + src.remaining());
            }
            dirty = true; // before the bytes land, so an eviction after this write forces them
            int start = position;
            int end = position + src.remaining();
            dirtyFromPage = Math.min(dirtyFromPage, position / PAGE);
            dirtyToPage = Math.max(dirtyToPage, (end - 1) / PAGE);
            while (src.hasRemaining()) {
                position += ch.write(src, position);
            }
            // again once they landed: a flush that cleared the flag while they were written did not force them
            dirty = true;
            dirtyFromPage = Math.min(dirtyFromPage, start / PAGE);
            dirtyToPage = Math.max(dirtyToPage, (end - 1) / PAGE);
        } finally {
            unpin();
        }
    }

    /**
     * Allocates the blocks up to {@code end} rounded up to the next {@link #ALLOCATION_STEP} (at least one
     * step, at most the file), before a write puts bytes there: a full disk then fails the write before any
     * byte of it lands (an IOException; nothing is mapped, so never a SIGBUS), never halfway through a batch.
     * Allocating in steps instead of whole files keeps a queue's disk usage near its entries: a whole file is
     * 5.72 MB at RocketMQ's default size, 46 GB for a thousand topics of eight queues holding a few entries each.
     */
    private void allocateThrough(int end) throws IOException {
        int to = (int) Math.min(fileSize, Alignment.up(Math.max(end, 1), ALLOCATION_STEP));
        if (to > allocatedTo) {
            FileBlockAllocator.allocate(path, allocatedTo, to - allocatedTo);
            allocatedTo = to;
        }
    }

    /** Zeroes the bytes from {@code position} to the end of the file. */
    void zeroFrom(int position) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
        int at = position;
        while (at < fileSize) {
            zeros.clear().limit(Math.min(zeros.capacity(), fileSize - at));
            write(at, zeros);
            at += zeros.limit();
        }
    }

    /** Forces the writes since the last flush; a file with none is not opened. */
    void flush() throws IOException {
        flush(0);
    }

    /**
     * As {@link #flush()}, but only if the writes since the last force span at least {@code leastPages}
     * pages (RocketMQ's flushConsumeQueueLeastPages; 0: any write). Returns false if written bytes
     * stay unforced.
     */
    boolean flush(int leastPages) throws IOException {
        FileChannel ch;
        synchronized (this) {
            if (!dirty || channel == null) {
                return true; // clean, or closed (eviction forced it before closing)
            }
            if (leastPages > 0 && dirtyToPage - dirtyFromPage + 1 < leastPages) {
                return false;
            }
            ch = channel;
            pins++;
            dirty = false;
            dirtyFromPage = Integer.MAX_VALUE;
            dirtyToPage = -1;
        }
        try {
            ch.force(false);
        } catch (IOException e) {
            dirty = true;
            dirtyFromPage = 0;  // unknown what went: the next round forces it whatever its size
            dirtyToPage = Integer.MAX_VALUE - 1;
            throw e;
        } finally {
            unpin();
        }
        return true;
    }

    /** Whether bytes written to the file have not been forced yet. */
    boolean dirty() {
        return dirty;
    }

    /** Flushes nothing: closes the channel for good (callers flush first). */
    void close() throws IOException {
        FileChannel ch;
        synchronized (this) {
            ended = true;
            ch = channel;
            channel = null;
        }
        if (ch != null) {
            budget.closed(this);
            ch.close();
        }
    }

    /** Closes, renames to {@code .delete} and removes the file (a crash in between leaves only a .delete file). */
    void delete() throws IOException {
        close();
        StoreFiles.delete(path);
    }

    // --- used by OpenFileBudget -------------------------------------------------------------

    synchronized boolean hasChannel() {
        return channel != null;
    }

    synchronized boolean pinned() {
        return pins > 0;
    }

    long lastUse() {
        return lastUse;
    }

    /** Under the budget's lock: opens the channel if needed and pins it; null once the file ended. */
    synchronized FileChannel openAndPinLocked() throws IOException {
        if (ended) {
            return null;
        }
        if (channel == null) {
            channel = FileChannel.open(path, creating ? OPEN_CREATE : OPEN_EXISTING);
            creating = false; // a reopen never recreates a file removed behind the store's back
            budget.opened(this);
        }
        pins++;
        lastUse = budget.tick();
        return channel;
    }

    /**
     * Under the budget's lock: closes the channel if no thread uses it, forcing unflushed writes
     * first (fdatasync), so a later {@link #flush()} that finds it closed has nothing to do.
     * Returns whether it closed it; on a failed force the channel stays open and dirty.
     */
    synchronized boolean closeIfIdle() throws IOException {
        if (pins > 0 || channel == null) {
            return false;
        }
        if (dirty) {
            channel.force(false);
            dirty = false;
            dirtyFromPage = Integer.MAX_VALUE;
            dirtyToPage = -1;
            budget.flushedOnEviction();
        }
        FileChannel ch = channel;
        channel = null;
        budget.closed(this);
        ch.close();
        return true;
    }

    // --- pinning ----------------------------------------------------------------------------

    private static final java.util.Set<StandardOpenOption> OPEN_EXISTING =
            java.util.EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
    private static final java.util.Set<StandardOpenOption> OPEN_CREATE =
            java.util.EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    private boolean creating;

    /** The open channel, pinned until {@link #unpin()}; null once the file was closed or deleted. */
    private FileChannel pin(boolean create) throws IOException {
        synchronized (this) {
            if (ended) {
                return null;
            }
            if (channel != null) {
                pins++;
                lastUse = budget.tick();
                return channel;
            }
            creating = create;
        }
        return budget.openPinned(this);
    }

    private void unpin() {
        boolean idle;
        synchronized (this) {
            idle = --pins == 0;
        }
        if (idle) {
            budget.released();
        }
    }

    /**
     * A channel closed under a reader that neither close() nor delete() closed (an interrupted
     * read closes a FileChannel): drop it so the next use opens the file again.
     */
    private void forget(FileChannel ch) {
        boolean dropped = false;
        synchronized (this) {
            if (channel == ch) {
                channel = null;
                dropped = true;
            }
        }
        if (dropped) {
            budget.closed(this);
        }
    }
}
