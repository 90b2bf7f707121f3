package io.basalt.store.commitlog;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The CommitLog's put lock: one appender at a time. It remembers when the current holder took it,
 * so a put can see at once that the lock has been held longer than {@code osPageCacheBusyTimeOutMills}
 * (page faults, reclaim or a GC pause inside the critical section) and answer OS_PAGE_CACHE_BUSY
 * instead of queueing behind it. Any thread may call it.
 */
final class PutMessageLock {
    private final ReentrantLock lock = new ReentrantLock();
    /** Clock value (ms) when the current holder took the lock; 0 when free. */
    private volatile long beginTimeInLockMs;

    /**
     * Takes the lock, waiting at most {@code timeoutMs}; false if that did not succeed (the caller
     * reports page cache busy) or the thread was interrupted (the flag is restored). The hold time
     * starts when the lock is taken, read from {@code clockMs}.
     */
    boolean tryLock(long timeoutMs, LongSupplier clockMs) {
        try {
            if (!lock.tryLock(timeoutMs, TimeUnit.MILLISECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        long nowMs = clockMs.getAsLong();
        beginTimeInLockMs = nowMs == 0 ? 1 : nowMs;
        return true;
    }

    void unlock() {
        beginTimeInLockMs = 0;
        lock.unlock();
    }

    /** True when some thread has held the lock for more than {@code timeoutMs} at {@code nowMs}. */
    boolean isBusy(long nowMs, long timeoutMs) {
        long begin = beginTimeInLockMs;
        return begin != 0 && nowMs - begin > timeoutMs;
    }

    /** How long the current holder has held the lock, 0 when free (a metric). */
    long heldMs(long nowMs) {
        long begin = beginTimeInLockMs;
        return begin == 0 ? 0 : Math.max(0, nowMs - begin);
    }
}
