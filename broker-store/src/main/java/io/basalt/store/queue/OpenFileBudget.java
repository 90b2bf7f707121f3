package io.basalt.store.queue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store-wide bound on open ConsumeQueue file channels ({@code maxOpenConsumeQueueFiles}). A
 * {@link ConsumeQueueFile} opens its channel through {@link #openPinned}; when the bound is reached the
 * least recently used channel that no thread is using (pin count 0) is closed first, after a
 * {@code force} if it holds unflushed writes. A pinned channel is never closed by eviction, so a
 * {@code ClosedChannelException} still means the file was deleted or the store closed.
 *
 * <p>Threads: any reader, the dispatcher and the flush service. Opening and eviction run under this
 * object's lock (lock order: budget, then file); closing a file only decrements the counter, so
 * {@link ConsumeQueueFile#close()} and {@code delete()} never take this lock. The open count only
 * grows under the lock, after room was made, so it never exceeds the bound: a caller that finds
 * every open channel pinned waits until one is released.
 */
final class OpenFileBudget {
    private static final Logger LOG = LoggerFactory.getLogger(OpenFileBudget.class);

    private final int maxOpen;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<ConsumeQueueFile> openFiles = ConcurrentHashMap.newKeySet();
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicLong evictionFlushes = new AtomicLong();
    private volatile int waiters;
    private int highWater;

    OpenFileBudget(int maxOpen) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("maxOpenConsumeQueueFiles must be at least 1: " + maxOpen);
        }
        this.maxOpen = maxOpen;
    }

    /** A budget no workload reaches, for a queue opened on its own (tools, tests). */
    static OpenFileBudget unbounded() {
        return new OpenFileBudget(Integer.MAX_VALUE);
    }

    int maxOpen() {
        return maxOpen;
    }

    /** Channels open now. */
    int openCount() {
        return open.get();
    }

    /** The most channels ever open at once. */
    synchronized int highWater() {
        return highWater;
    }

    /** Channels closed to make room since the store opened. */
    long evictions() {
        return evictions.get();
    }

    /** Evicted channels that held unflushed writes and were forced before closing. */
    long evictionFlushes() {
        return evictionFlushes.get();
    }

    void flushedOnEviction() {
        evictionFlushes.incrementAndGet();
    }

    /**
     * Recency clock: a file records the time of its last use; the idle one with the smallest is
     * evicted. nanoTime rather than a shared counter, so readers on different cores touch no common
     * cache line.
     */
    long tick() {
        return System.nanoTime();
    }

    /**
     * Makes room for one channel, then lets {@code file} open and pin its channel. Returns what
     * {@link ConsumeQueueFile#openAndPinLocked} returns (null once the file is closed or deleted).
     */
    synchronized java.nio.channels.FileChannel openPinned(ConsumeQueueFile file) throws java.io.IOException {
        boolean interrupted = false;
        try {
            while (open.get() >= maxOpen && !file.hasChannel()) {
                if (!evictOne(file)) {
                    // Every open channel is in a read or write right now: wait for a release.
                    waiters++;
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } finally {
                        waiters--;
                    }
                }
            }
            java.nio.channels.FileChannel channel = file.openAndPinLocked();
            highWater = Math.max(highWater, open.get());
            return channel;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Called by a file that opened its channel (under this lock, from openAndPinLocked). */
    void opened(ConsumeQueueFile file) {
        openFiles.add(file);
        open.incrementAndGet();
    }

    /** Called by a file that closed its channel; takes no lock. */
    void closed(ConsumeQueueFile file) {
        if (openFiles.remove(file)) {
            open.decrementAndGet();
        }
    }

    /** Called when a pin drops to zero: wakes a caller waiting for an idle channel. */
    void released() {
        if (waiters > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    private boolean evictOne(ConsumeQueueFile requester) {
        Set<ConsumeQueueFile> unflushable = new java.util.HashSet<>();
        while (true) {
            ConsumeQueueFile oldest = null;
            long oldestUse = Long.MAX_VALUE;
            for (ConsumeQueueFile f : openFiles) {
                if (f != requester && !f.pinned() && f.lastUse() < oldestUse && !unflushable.contains(f)) {
                    oldest = f;
                    oldestUse = f.lastUse();
                }
            }
            if (oldest == null) {
                return false;
            }
            try {
                if (oldest.closeIfIdle()) {
                    evictions.incrementAndGet();
                    return true;
                }
            } catch (java.io.IOException e) {
                // Its fsync failed: keep it open and dirty, the flush service reports the failure.
                LOG.warn("Could not flush {} before closing it to make room: {}", oldest.path(), e.toString());
                unflushable.add(oldest);
            }
            // It was pinned or closed between the scan and the lock: look again.
        }
    }
}
