package io.basalt.store.flush;

import io.basalt.store.FlushObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import io.basalt.common.service.ServiceThread;
import io.basalt.store.StoreConfig;

/**
 * ASYNC_FLUSH: a put never waits for the disk. One {@link PeriodicWriteOutService} (the flusher,
 * {@code FlushRealTimeService}) forces the log every {@code flushIntervalCommitLog} ms; with a transient
 * store pool another (the committer, {@code CommitRealTimeService}) first moves the write buffer to the
 * file every {@code commitIntervalCommitLog} ms (readers see only committed bytes) and wakes the flusher
 * after each commit that moved bytes.
 */
final class AsyncFlushPolicy implements FlushPolicy {
    private final PeriodicWriteOutService flusher;
    /** Null without a transient store pool: then appends go to the mapping and need no commit. */
    private final PeriodicWriteOutService committer;
    private final boolean wakeCommitOnPut;
    private final LongSupplier readableEnd;

    AsyncFlushPolicy(StoreConfig config, FlushTarget target, FailStop failStop, LongSupplier clockMs,
                     boolean writeBuffered, LongSupplier readableEnd) {
        this.flusher = PeriodicWriteOutService.flusher(target, failStop, config.flushIntervalCommitLog(),
            config.flushCommitLogLeastPages(), config.flushCommitLogThoroughInterval(), config.flushCommitLogTimed(),
            clockMs);
        this.committer = writeBuffered
            ? PeriodicWriteOutService.committer(target, failStop, config.commitIntervalCommitLog(),
                config.commitCommitLogLeastPages(), config.commitCommitLogThoroughInterval(), clockMs,
                flusher::wakeupForData)
            : null;
        this.wakeCommitOnPut = config.wakeCommitWhenPutMessage();
        this.readableEnd = readableEnd;
    }

    @Override
    public void start() {
        flusher.start();
        if (committer != null) {
            committer.start();
        }
    }

    @Override
    public void afterAppend() {
        if (committer == null) {
            flusher.wakeupForData();
        } else if (wakeCommitOnPut) {
            committer.wakeupForData();
        }
    }

    @Override
    public CompletableFuture<GroupCommitRequest.Outcome> await(long nextOffset, boolean waitForFlush) {
        return null;
    }

    @Override
    public long dispatchLimit() {
        return readableEnd.getAsLong();
    }

    /** The committer's last commit runs before the flusher's last force, so both cover everything. */
    @Override
    public void shutdown() {
        if (committer != null) {
            committer.shutdown();
        }
        flusher.shutdown();
    }

    @Override
    public void setObserver(FlushObserver observer) {
        flusher.setObserver(observer);
    }

    @Override
    public long forceCount() {
        return 0;
    }

    @Override
    public long flushedRequestCount() {
        return 0;
    }

    @Override
    public List<ServiceThread> services() {
        return committer == null ? List.of(flusher) : List.of(committer, flusher);
    }
}
