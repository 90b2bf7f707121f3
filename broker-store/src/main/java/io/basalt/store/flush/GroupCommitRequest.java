package io.basalt.store.flush;

import java.util.concurrent.CompletableFuture;

/**
 * A SYNC_FLUSH put waiting for force() to cover {@link #nextOffset()} (the end of its record).
 * Its future completes once: {@link Outcome#FLUSHED} by the group commit, {@link Outcome#TIMED_OUT}
 * by the watcher at the deadline, or exceptionally when the store fails — whichever comes first.
 */
public final class GroupCommitRequest {
    /** How a sync flush wait ended when it did not fail. */
    public enum Outcome { FLUSHED, TIMED_OUT }

    private final long nextOffset;
    private final long deadlineNanos;
    private final CompletableFuture<Outcome> future = new CompletableFuture<>();

    /**
     * @param nextOffset    global offset just past the record(s) to make durable
     * @param deadlineNanos {@link System#nanoTime()} after which the wait times out
     */
    public GroupCommitRequest(long nextOffset, long deadlineNanos) {
        this.nextOffset = nextOffset;
        this.deadlineNanos = deadlineNanos;
    }

    public long nextOffset() {
        return nextOffset;
    }

    public long deadlineNanos() {
        return deadlineNanos;
    }

    public CompletableFuture<Outcome> future() {
        return future;
    }

    boolean isDone() {
        return future.isDone();
    }
}
