package io.basalt.store.mappedfile;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedDeque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Off-heap write buffers for CommitLog files ({@code transientStorePoolEnable}): {@code poolSize}
 * direct buffers of one file size each ({@code transientStorePoolSize}), mlocked where the platform
 * allows. A new file borrows one; appends land in it, commit writes them to the FileChannel, and the
 * buffer comes back once its file is full and committed.
 *
 * <p>{@link #borrowBuffer()} never blocks: an empty pool returns null and the caller falls back to a
 * plain mapped file. Any thread may borrow or return.
 */
public final class TransientStorePool {
    private static final Logger LOG = LoggerFactory.getLogger(TransientStorePool.class);

    private final int poolSize;
    private final int fileSize;
    private final ConcurrentLinkedDeque<ByteBuffer> available = new ConcurrentLinkedDeque<>();
    /** Whether mlock worked; then every buffer is munlocked when freed (harmless for one it failed on). */
    private final boolean locked;
    private volatile boolean destroyed;
    private volatile boolean lowWarned;

    /**
     * Allocates (and mlocks) {@code poolSize} direct buffers of {@code fileSize} bytes.
     *
     * @throws IllegalStateException when the JVM's direct memory cannot hold the pool (the buffers
     *                               allocated so far are freed first)
     */
    public TransientStorePool(int poolSize, int fileSize) {
        if (poolSize <= 0 || fileSize <= 0) {
            throw new IllegalArgumentException("transientStorePoolSize and the file size must be positive: "
                + poolSize + ", " + fileSize);
        }
        this.poolSize = poolSize;
        this.fileSize = fileSize;
        boolean anyLocked = false;
        for (int i = 0; i < poolSize; i++) {
            ByteBuffer buffer;
            try {
                buffer = ByteBuffer.allocateDirect(fileSize);
            } catch (OutOfMemoryError e) {
                // A start-up configuration error, not a dying JVM: say what to change.
                freeAll(anyLocked);
                throw new IllegalStateException("transientStorePoolEnable: buffer " + (i + 1) + " of " + poolSize
                    + " (" + fileSize + " bytes each, " + (long) poolSize * fileSize + " in all) does not fit in the"
                    + " JVM's direct memory (" + e.getMessage() + "); raise -XX:MaxDirectMemorySize or lower"
                    + " transientStorePoolSize", e);
            }
            anyLocked |= NativeIO.mlock(buffer, fileSize);
            available.addLast(buffer);
        }
        this.locked = anyLocked;
        LOG.info("TransientStorePool: {} buffers of {} bytes{}", poolSize, fileSize, anyLocked ? ", mlocked" : "");
    }

    public int poolSize() {
        return poolSize;
    }

    public int fileSize() {
        return fileSize;
    }

    public int availableBufferCount() {
        return available.size();
    }

    /** A free buffer (position 0, limit file size), or null when none is free. Never blocks. */
    public ByteBuffer borrowBuffer() {
        if (destroyed) {
            return null;
        }
        ByteBuffer buffer = available.pollFirst();
        if (buffer != null && isLow() && !lowWarned) {
            lowWarned = true;
            LOG.warn("TransientStorePool is running low: {} of {} buffers free", available.size(), poolSize);
        }
        return buffer;
    }

    /** Gives a borrowed buffer back; after {@link #destroy()} it is freed instead. */
    public synchronized void returnBuffer(ByteBuffer buffer) {
        buffer.clear();
        if (destroyed) {
            free(buffer);
        } else {
            available.addFirst(buffer);
            lowWarned = isLow();
        }
    }

    /** Fewer than 40 % of the buffers free (RocketMQ's threshold for its warning). */
    private boolean isLow() {
        return available.size() < poolSize * 0.4;
    }

    /**
     * Unlocks and frees every free buffer now; a buffer still borrowed is freed when its file gives
     * it back (never under a writer).
     */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        ByteBuffer buffer;
        while ((buffer = available.pollFirst()) != null) {
            free(buffer);
        }
    }

    private void freeAll(boolean unlock) {
        ByteBuffer buffer;
        while ((buffer = available.pollFirst()) != null) {
            free(buffer, unlock);
        }
    }

    private void free(ByteBuffer buffer) {
        free(buffer, locked);
    }

    private void free(ByteBuffer buffer, boolean unlock) {
        if (unlock) {
            NativeIO.munlock(buffer, fileSize);
        }
        Unmapper.unmap("TransientStorePool buffer", buffer);
    }
}
