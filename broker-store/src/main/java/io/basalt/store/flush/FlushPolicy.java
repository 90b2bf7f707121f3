package io.basalt.store.flush;

import io.basalt.store.FlushObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import io.basalt.common.service.ServiceThread;
import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;

/**
 * How the CommitLog makes appends durable: one per CommitLog, chosen once from {@code flushDiskType}.
 * {@link SyncFlushPolicy} (SYNC_FLUSH) runs the group commit, its timeout watcher and the thread that
 * completes the put futures; {@link AsyncFlushPolicy} (ASYNC_FLUSH) runs the periodic flusher and,
 * with a transient store pool, the periodic committer. The policy owns those threads from
 * {@link #start()} to {@link #shutdown()}.
 *
 * <p>Threads: {@link #afterAppend()}, {@link #await} and {@link #dispatchLimit()} from put and
 * dispatcher threads, on the hot path: they must not lock or allocate beyond a sync put's one request.
 * {@link #start()} and {@link #shutdown()} from the CommitLog's lifecycle thread.
 */
public interface FlushPolicy {

    /**
     * The policy {@code config.flushDiskType()} asks for, acting on {@code target}.
     *
     * @param writeBuffered  a transient store pool holds appends until they are committed
     * @param readableEnd    end of the bytes readers may see (what ASYNC_FLUSH dispatches up to)
     */
    static FlushPolicy create(StoreConfig config, FlushTarget target, FailStop failStop, LongSupplier clockMs,
                              boolean writeBuffered, LongSupplier readableEnd) {
        return config.flushDiskType() == FlushDiskType.SYNC_FLUSH
            ? new SyncFlushPolicy(target, failStop, config.syncFlushTimeout())
            : new AsyncFlushPolicy(config, target, failStop, clockMs, writeBuffered, readableEnd);
    }

    /** Starts the policy's threads. */
    void start();

    /** Called by a put thread after its append, outside the put lock: wakes whoever moves the bytes on. */
    void afterAppend();

    /**
     * The durability wait of a record ending at {@code nextOffset}, or null when the put need not
     * wait for the disk (ASYNC_FLUSH, or a SYNC_FLUSH put with {@code WAIT=false}, which only wakes
     * the flusher). The future completes FLUSHED, TIMED_OUT, or exceptionally when the store fails.
     */
    CompletableFuture<GroupCommitRequest.Outcome> await(long nextOffset, boolean waitForFlush);

    /**
     * How far the dispatcher may read: the flushed offset under SYNC_FLUSH (consumers never see what a
     * crash could take back), the readable end under ASYNC_FLUSH.
     */
    long dispatchLimit();

    /**
     * Stops the threads after a last commit and force of everything appended, and answers every
     * waiting put. Call it after puts have stopped. Idempotent.
     */
    void shutdown();

    /** Who hears of each force that wrote something (metrics); set before start. */
    void setObserver(FlushObserver observer);

    /** SYNC_FLUSH: force() rounds of the group commit so far (0 under ASYNC_FLUSH); a metric. */
    long forceCount();

    /** SYNC_FLUSH: waiting puts completed by the group commit so far (0 under ASYNC_FLUSH); a metric. */
    long flushedRequestCount();

    /** The policy's service threads (their error counters are metrics). */
    List<ServiceThread> services();
}
