package io.basalt.store.flush;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory {@link FlushTarget}: tests move {@code wrote}, and may hold force() back on a latch
 * or make it throw. Without a write buffer, commit just follows wrote unless {@code buffered}.
 */
final class FakeFlushTarget implements FlushTarget {
    volatile long wrote;
    volatile long committed;
    volatile long flushed;
    volatile boolean buffered;
    volatile CountDownLatch holdForce;
    volatile IOException forceFailure;
    volatile boolean inForce;
    /** Runs inside each force, after its goal was taken (a writer appending while the disk works). */
    volatile Runnable duringForce;
    final AtomicInteger forces = new AtomicInteger();
    final List<Integer> flushLeastPages = new CopyOnWriteArrayList<>();
    final List<Integer> commitLeastPages = new CopyOnWriteArrayList<>();

    void append(int bytes) {
        wrote += bytes;
        if (!buffered) {
            committed = wrote;
        }
    }

    @Override
    public long commit(int leastPages) {
        commitLeastPages.add(leastPages);
        if (enoughPages(wrote, committed, leastPages)) {
            committed = wrote;
        }
        return committed;
    }

    @Override
    public long flush(int leastPages) throws IOException {
        flushLeastPages.add(leastPages);
        if (!enoughPages(committed, flushed, leastPages)) {
            return flushed;
        }
        long goal = committed;
        inForce = true;
        try {
            CountDownLatch hold = holdForce;
            if (hold != null) {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            forces.incrementAndGet();
            Runnable during = duringForce;
            if (during != null) {
                during.run();
            }
            if (forceFailure != null) {
                throw forceFailure;
            }
            flushed = goal;
            return flushed;
        } finally {
            inForce = false;
        }
    }

    private static boolean enoughPages(long upper, long lower, int leastPages) {
        if (upper <= lower) {
            return false;
        }
        return leastPages == 0 || upper / 4096 - lower / 4096 >= leastPages;
    }

    @Override
    public long flushedOffset() {
        return flushed;
    }

    @Override
    public long committedOffset() {
        return committed;
    }

    @Override
    public long appendedOffset() {
        return wrote;
    }

    @Override
    public String fileAt(long offset) {
        return "fake/" + offset;
    }
}
