package io.basalt.store;

import io.basalt.store.flush.GroupCommitService;

/**
 * Told about each force of the CommitLog that wrote something, on the flush thread: keep it cheap and
 * non-blocking (metrics only).
 */
@FunctionalInterface
public interface FlushObserver {
    FlushObserver NONE = (durationNanos, groupSize) -> { };

    /**
     * @param durationNanos how long commit + force took
     * @param groupSize     sync puts waiting on this force (GroupCommitService); 0 for a timed ASYNC_FLUSH force
     */
    void flushed(long durationNanos, int groupSize);
}
