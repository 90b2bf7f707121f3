package io.basalt.store.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;

import io.basalt.store.mappedfile.FileBlockAllocator;
import io.basalt.store.mappedfile.StoreFiles;
import io.basalt.store.mappedfile.Unmapper;

/**
 * One RocketMQ IndexFile: a hash table from message keys to CommitLog offsets, chained on collision.
 *
 * <pre>
 * header (40 bytes)  [long beginTimestamp][long endTimestamp][long beginPhyOffset][long endPhyOffset]
 *                    [int hashSlotCount][int indexCount]
 * slots              hashSlotNum x [int newest item index in the slot, 0 = empty]
 * items              indexNum x [int keyHash][long physicalOffset][int timeDiff seconds since beginTimestamp][int prevIndex]
 * </pre>
 * Item 0 is never used (indexCount starts at 1, 0 means "no item"), so a file holds indexNum - 1 keys.
 * keyHash = |("topic#key").hashCode()| (0 for Integer.MIN_VALUE); slot = keyHash % hashSlotNum.
 *
 * <p>The writer (the dispatcher) writes through a mapping of the file, as RocketMQ does: a key costs
 * a few memory stores instead of four system calls. Readers never touch the mapping: they use
 * positional reads (pread), which see the same page cache. So a lookup touches a few pages without
 * mmap fault read-ahead (docs/pain-points.md#pp-17), and the mapping can be unmapped deterministically once the
 * file is full and flushed, or deleted, with no reader able to fault on it; closing the channel under a
 * reader makes that reader stop with what it found. An item is written before the slot that points to
 * it and the header last (then the volatile indexCount), so a reader always follows a complete chain.
 *
 * <p>Threads: one writer (the dispatcher) calls {@link #putKey}; readers from any thread;
 * {@link #flush}, {@link #close} and {@link #delete} are synchronized with each other.
 */
final class IndexFile {
    static final int HEADER_SIZE = 40;
    static final int SLOT_SIZE = 4;
    static final int ITEM_SIZE = 20;
    private static final int INVALID_INDEX = 0;

    private final Path path;
    private final int hashSlotNum;
    private final int indexNum;
    private final FileChannel channel;
    /** Write mapping while the file takes keys; null once full and flushed, or closed. */
    private MappedByteBuffer writeMap;
    /** Writer thread: true once every block of the file is allocated (a loaded file may be sparse). */
    private boolean blocksAllocated;

    private volatile long beginTimestamp;
    private volatile long endTimestamp;
    private volatile long beginPhyOffset;
    private volatile long endPhyOffset;
    private volatile int hashSlotCount;
    private volatile int indexCount = 1;
    private volatile boolean dirty;

    private IndexFile(Path path, int hashSlotNum, int indexNum, FileChannel channel) {
        this.path = path;
        this.hashSlotNum = hashSlotNum;
        this.indexNum = indexNum;
        this.channel = channel;
    }

    static long fileSize(int hashSlotNum, int indexNum) {
        return HEADER_SIZE + (long) hashSlotNum * SLOT_SIZE + (long) indexNum * ITEM_SIZE;
    }

    /**
     * Creates a new file (it must not exist). As in RocketMQ, a file that follows a full one starts with
     * begin = end = the previous file's end offset and timestamp.
     */
    static IndexFile create(Path path, int hashSlotNum, int indexNum, long prevEndPhyOffset, long prevEndTimestamp)
            throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        IndexFile f = new IndexFile(path, hashSlotNum, indexNum, channel);
        try {
            channel.write(ByteBuffer.wrap(new byte[1]), fileSize(hashSlotNum, indexNum) - 1);
            // real blocks before the mapping: a full disk fails here, never as SIGBUS in putKey
            FileBlockAllocator.allocate(path, fileSize(hashSlotNum, indexNum));
            f.blocksAllocated = true;
            f.writeMap = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileSize(hashSlotNum, indexNum));
            if (prevEndPhyOffset > 0) {
                f.beginPhyOffset = prevEndPhyOffset;
                f.endPhyOffset = prevEndPhyOffset;
            }
            if (prevEndTimestamp > 0) {
                f.beginTimestamp = prevEndTimestamp;
                f.endTimestamp = prevEndTimestamp;
            }
            f.writeHeader();
            f.writeMap.force();
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            f.unmap();
            channel.close();
            Files.deleteIfExists(path);
            throw e;
        }
        return f;
    }

    /** Opens an existing file and reads its header; the size must match the slot and item counts. */
    static IndexFile load(Path path, int hashSlotNum, int indexNum) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long expected = fileSize(hashSlotNum, indexNum);
            if (channel.size() != expected) {
                throw new IOException("IndexFile " + path + " has " + channel.size() + " bytes; maxHashSlotNum "
                        + hashSlotNum + " and maxIndexNum " + indexNum + " need " + expected);
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE);
            readFully(channel, header, 0);
            IndexFile f = new IndexFile(path, hashSlotNum, indexNum, channel);
            f.beginTimestamp = header.getLong(0);
            f.endTimestamp = header.getLong(8);
            f.beginPhyOffset = header.getLong(16);
            f.endPhyOffset = header.getLong(24);
            f.hashSlotCount = header.getInt(32);
            f.indexCount = Math.max(1, Math.min(header.getInt(36), indexNum));
            if (!f.isWriteFull()) {
                f.writeMap = channel.map(FileChannel.MapMode.READ_WRITE, 0, expected);
            }
            return f;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Why the header cannot be right (null when it can): timestamps or offsets that go backwards, counts
     * outside the file. Cheap; run for every file at start.
     */
    String headerProblem() throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE);
        readFully(channel, header, 0);
        int count = header.getInt(36);
        int slots = header.getInt(32);
        if (count < 0 || count > indexNum || slots < 0 || slots > hashSlotNum) {
            return "indexCount " + count + " / hashSlotCount " + slots + " outside the file";
        }
        if (beginTimestamp < 0 || endTimestamp < beginTimestamp || beginPhyOffset < 0 || endPhyOffset < beginPhyOffset) {
            return "header range goes backwards (timestamps " + beginTimestamp + ".." + endTimestamp + ", offsets "
                + beginPhyOffset + ".." + endPhyOffset + ")";
        }
        return null;
    }

    /**
     * Why the items cannot be right (null when they can): every slot points at an item below
     * indexCount, and every item in use is non-zero, chains to an older item and points into the
     * header's offset range. Reads the slots and the items in use (20 bytes a key); run after a crash.
     */
    String contentProblem() throws IOException {
        String header = headerProblem();
        if (header != null) {
            return header;
        }
        int count = indexCount;
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        int[] slots = new int[hashSlotNum];
        for (long at = 0; at < (long) hashSlotNum * SLOT_SIZE; at += chunk.capacity()) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), (long) hashSlotNum * SLOT_SIZE - at));
            readFully(channel, chunk, HEADER_SIZE + at);
            for (int i = 0; i < chunk.limit(); i += SLOT_SIZE) {
                int slot = (int) ((at + i) / SLOT_SIZE);
                slots[slot] = chunk.getInt(i);
                // the one key being added when the process died may have its item and slot, not the header
                if (slots[slot] < 0 || slots[slot] > count) {
                    return "slot " + slot + " points at item " + slots[slot] + " of " + count;
                }
            }
        }
        long itemsStart = HEADER_SIZE + (long) hashSlotNum * SLOT_SIZE;
        int perChunk = chunk.capacity() / ITEM_SIZE;
        for (int first = 1; first < count; first += perChunk) {
            int n = Math.min(perChunk, count - first);
            chunk.clear().limit(n * ITEM_SIZE);
            readFully(channel, chunk, itemsStart + (long) first * ITEM_SIZE);
            for (int k = 0; k < n; k++) {
                int item = first + k;
                int base = k * ITEM_SIZE;
                int hash = chunk.getInt(base);
                long phy = chunk.getLong(base + 4);
                int timeDiff = chunk.getInt(base + 12);
                int prev = chunk.getInt(base + 16);
                boolean zero = hash == 0 && phy == 0 && timeDiff == 0 && prev == 0;
                if (zero && item > 1 || hash < 0 || prev < 0 || prev >= item || timeDiff < 0 || phy < beginPhyOffset
                    || phy > endPhyOffset) {
                    return "item " + item + " (offset " + phy + ", previous " + prev + ") is not a key of this file";
                }
                // the newest item of a key's slot is this one or a later one: a lost slot page shows here
                if (slots[hash % hashSlotNum] < item) {
                    return "slot " + (hash % hashSlotNum) + " does not reach item " + item;
                }
            }
        }
        return null;
    }

    private static void readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, at);
            if (n < 0) {
                throw new IOException("unexpected end of file at " + at);
            }
            at += n;
        }
        dst.flip();
    }

    static int keyHash(String key) {
        int positive = Math.abs(key.hashCode());
        return positive < 0 ? 0 : positive;
    }

    Path path() {
        return path;
    }

    String fileName() {
        return path.getFileName().toString();
    }

    long beginTimestamp() {
        return beginTimestamp;
    }

    long endTimestamp() {
        return endTimestamp;
    }

    long endPhyOffset() {
        return endPhyOffset;
    }

    int indexCount() {
        return indexCount;
    }

    int hashSlotCount() {
        return hashSlotCount;
    }

    /**
     * Allocates the file's blocks before the first write into a loaded file (files written by an
     * older Basalt, or RocketMQ, may be sparse: a mapped write into a hole on a full disk is SIGBUS).
     * Not done at load, so a start needs no free space. Writer thread; cheap once allocated.
     */
    void ensureBlocks() throws IOException {
        if (!blocksAllocated) {
            FileBlockAllocator.allocate(path, fileSize(hashSlotNum, indexNum));
            blocksAllocated = true;
        }
    }

    /** Whether writes to the file have not been forced yet. */
    boolean dirty() {
        return dirty;
    }

    boolean isWriteFull() {
        return indexCount >= indexNum;
    }

    /** True if no key has been put in this file yet. */
    boolean isEmpty() {
        return indexCount <= 1;
    }

    /** Adds {@code key}; false if the file is full. Writer thread only. */
    boolean putKey(String key, long physicalOffset, long storeTimestamp) {
        int count = indexCount;
        if (count >= indexNum) {
            return false;
        }
        MappedByteBuffer map = writeMap;
        if (map == null) {
            throw new IllegalStateException("IndexFile " + path + " is closed");
        }
        int keyHash = keyHash(key);
        int slotPosition = HEADER_SIZE + (keyHash % hashSlotNum) * SLOT_SIZE;
        int slotValue = map.getInt(slotPosition);
        boolean slotWasEmpty = slotValue <= INVALID_INDEX || slotValue > count;
        if (slotWasEmpty) {
            slotValue = INVALID_INDEX;
        }
        long timeDiff;
        if (beginTimestamp <= 0) {
            timeDiff = 0;
        } else {
            timeDiff = Math.max(0, Math.min(Integer.MAX_VALUE, (storeTimestamp - beginTimestamp) / 1000));
        }
        int itemPosition = HEADER_SIZE + hashSlotNum * SLOT_SIZE + count * ITEM_SIZE;
        map.putInt(itemPosition, keyHash);
        map.putLong(itemPosition + 4, physicalOffset);
        map.putInt(itemPosition + 12, (int) timeDiff);
        map.putInt(itemPosition + 16, slotValue);
        map.putInt(slotPosition, count);

        if (count <= 1) {
            beginPhyOffset = physicalOffset;
            beginTimestamp = storeTimestamp;
        }
        if (slotWasEmpty) {
            hashSlotCount++;
        }
        endPhyOffset = physicalOffset;
        endTimestamp = storeTimestamp;
        writeHeaderFields(map, count + 1);
        indexCount = count + 1;
        dirty = true;
        return true;
    }

    /** RocketMQ's isTimeMatched: the file's [begin, end] time range overlaps [begin, end]. */
    boolean isTimeMatched(long begin, long end) {
        long b = beginTimestamp;
        long e = endTimestamp;
        return (begin < b && end > e) || (begin >= b && begin <= e) || (end >= b && end <= e);
    }

    /**
     * Adds to {@code out} (newest first, until it holds {@code maxNum}) the offsets of the items of
     * {@code key} stored within [begin, end] at one-second granularity; items of another key with the
     * same hash come too, so callers compare the keys of the messages. Stops early if the file is
     * closed meanwhile.
     */
    void selectPhyOffsets(Collection<Long> out, String key, int maxNum, long begin, long end) {
        int count = indexCount;
        if (count <= 1) {
            return;
        }
        int keyHash = keyHash(key);
        long slotPosition = HEADER_SIZE + (long) (keyHash % hashSlotNum) * SLOT_SIZE;
        long fileBegin = beginTimestamp;
        try {
            int next = readInt(slotPosition);
            ByteBuffer item = ByteBuffer.allocate(ITEM_SIZE);
            int steps = 0;
            while (next > INVALID_INDEX && next < count && out.size() < maxNum && steps++ < count) {
                item.clear();
                readFully(channel, item, HEADER_SIZE + (long) hashSlotNum * SLOT_SIZE + (long) next * ITEM_SIZE);
                int hash = item.getInt(0);
                long physicalOffset = item.getLong(4);
                int timeDiff = item.getInt(12);
                int prev = item.getInt(16);
                if (timeDiff < 0) {
                    break;
                }
                long time = fileBegin + timeDiff * 1000L;
                // Item times are whole seconds after the file's begin (rounded down), so an item
                // matches if its second overlaps [begin, end]; callers re-check the message itself.
                boolean inRange = time + 999 >= begin && time <= end;
                if (hash == keyHash && inRange) {
                    out.add(physicalOffset);
                }
                if (prev == next || time + 999 < begin) {
                    break;
                }
                next = prev;
            }
        } catch (ClosedChannelException e) {
            // deleted by retention while we read: what we found so far stands
        } catch (IOException e) {
            throw new UncheckedIOException("read of IndexFile " + path + " failed", e);
        }
    }

    private int readInt(long position) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4);
        readFully(channel, b, position);
        return b.getInt(0);
    }

    private void writeHeader() {
        writeHeaderFields(writeMap, indexCount);
    }

    private void writeHeaderFields(MappedByteBuffer map, int count) {
        map.putLong(0, beginTimestamp);
        map.putLong(8, endTimestamp);
        map.putLong(16, beginPhyOffset);
        map.putLong(24, endPhyOffset);
        map.putInt(32, hashSlotCount);
        map.putInt(36, count);
    }

    /** Forces what was written; a full file's mapping is then released for good. */
    synchronized void flush() throws IOException {
        MappedByteBuffer map = writeMap;
        if (map == null) {
            return;
        }
        if (dirty) {
            dirty = false;
            map.force();
        }
        if (isWriteFull()) {
            unmap();
        }
    }

    private synchronized void unmap() {
        MappedByteBuffer map = writeMap;
        if (map != null) {
            writeMap = null;
            Unmapper.unmap(path.toString(), map);
        }
    }

    /** Flushes, unmaps and closes. Idempotent. */
    synchronized void close() throws IOException {
        if (channel.isOpen()) {
            try {
                if (writeMap != null && dirty) {
                    dirty = false;
                    writeMap.force();
                }
            } finally {
                unmap();
                channel.close();
            }
        }
    }

    /** Unmaps, closes, renames to {@code .delete}, removes. A reader inside a lookup stops with what it found. */
    synchronized void delete() throws IOException {
        unmap();
        channel.close();
        StoreFiles.delete(path);
    }
}
