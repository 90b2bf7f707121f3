package io.basalt.store.flush;

import io.basalt.store.FlushObserver;
import io.basalt.common.concurrent.DaemonThreads;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.service.ServiceThread;

/**
 * SYNC_FLUSH: a put waits for the {@link GroupCommitService} to force its record; the
 * {@link FlushDiskWatcher} times the wait out after {@code syncFlushTimeout} ms; futures complete on
 * the {@code FlushAckThread}, so callers' callbacks never delay the next force. With a transient
 * store pool the group commit is also the only committer (no periodic committer runs), so a sync put
 * never waits for the commit interval and the committed position has a single writer.
 */
final class SyncFlushPolicy implements FlushPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(SyncFlushPolicy.class);

    private final FlushTarget target;
    private final long syncFlushTimeoutMs;
    private final long syncFlushTimeoutNs;
    private final FlushDiskWatcher watcher;
    private final ExecutorService ackExecutor;
    private final GroupCommitService groupCommit;
    private boolean started;
    private boolean stopped;

    SyncFlushPolicy(FlushTarget target, FailStop failStop, long syncFlushTimeoutMs) {
        this.target = target;
        this.syncFlushTimeoutMs = syncFlushTimeoutMs;
        this.syncFlushTimeoutNs = TimeUnit.MILLISECONDS.toNanos(syncFlushTimeoutMs);
        this.watcher = new FlushDiskWatcher(System::nanoTime, failStop);
        this.ackExecutor = Executors.newSingleThreadExecutor(DaemonThreads.named("FlushAckThread"));
        this.groupCommit = new GroupCommitService(target, failStop, watcher, ackExecutor);
    }

    @Override
    public synchronized void start() {
        watcher.start();
        groupCommit.start();
        started = true;
    }

    @Override
    public void afterAppend() {
        // the group commit is woken by the request (or by await's wakeup for WAIT=false)
    }

    @Override
    public CompletableFuture<GroupCommitRequest.Outcome> await(long nextOffset, boolean waitForFlush) {
        if (!waitForFlush) {
            groupCommit.wakeup();
            return null;
        }
        GroupCommitRequest request = new GroupCommitRequest(nextOffset, System.nanoTime() + syncFlushTimeoutNs);
        groupCommit.submit(request);
        return request.future();
    }

    @Override
    public long dispatchLimit() {
        return target.flushedOffset();
    }

    @Override
    public synchronized void shutdown() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (!started) {
            ackExecutor.shutdownNow();
            return;
        }
        groupCommit.shutdown();
        watcher.shutdown();
        ackExecutor.shutdown();
        try {
            if (!ackExecutor.awaitTermination(syncFlushTimeoutMs, TimeUnit.MILLISECONDS)) {
                LOG.warn("FlushAckThread did not finish within {} ms", syncFlushTimeoutMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void setObserver(FlushObserver observer) {
        groupCommit.setObserver(observer);
    }

    @Override
    public long forceCount() {
        return groupCommit.forceCount();
    }

    @Override
    public long flushedRequestCount() {
        return groupCommit.flushedRequestCount();
    }

    @Override
    public List<ServiceThread> services() {
        return List.of(groupCommit, watcher);
    }
}
