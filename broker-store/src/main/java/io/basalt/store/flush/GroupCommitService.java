package io.basalt.store.flush;

import io.basalt.store.FlushObserver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedArrayQueue;

import io.basalt.store.StoreException;
import io.basalt.common.service.ServiceThread;

/**
 * SYNC_FLUSH group commit. Put threads {@link #submit} a {@link GroupCommitRequest} through a jctools
 * MPSC queue; this thread drains every waiting request, forces once up to everything appended so far,
 * and completes every request that force covered. Requests that arrive while a force() runs queue up
 * and are served together by the next one, so one force serves a whole group.
 *
 * <p>Futures are completed on {@code completionExecutor}, so callbacks attached by callers never
 * delay the next force. A request not covered within its deadline is completed
 * {@link GroupCommitRequest.Outcome#TIMED_OUT} by the {@link FlushDiskWatcher}, even while force()
 * is stuck. An {@link IOException} from commit or force trips the {@link FailStop}: every waiting
 * future then fails and no later force is attempted. The FailStop is also its error policy: an
 * unexpected exception of a round trips it, and the next round (after the back-off) fails every
 * waiting future instead of forcing.
 *
 * <p>With a transient store pool this service is also the only committer (no CommitRealTimeService
 * runs under SYNC_FLUSH), so a sync put never waits for the commit interval.
 *
 * <p>Thread confinement: {@link #submit} and {@link #wakeup()} from any thread; everything else
 * belongs to the service thread (or a test calling {@link #doWork()} without starting it).
 */
public final class GroupCommitService extends ServiceThread {
    /** RocketMQ's GroupCommitService wakes every 10 ms, so WAIT=false appends get flushed too. */
    private static final long IDLE_WAIT_MS = 10;
    private static final int MAX_DRAIN = 16 * 1024;

    private final FlushTarget target;
    private final FailStop failStop;
    private final FlushDiskWatcher watcher;
    private final Executor completionExecutor;
    private final MessagePassingQueue<GroupCommitRequest> requests = new MpscUnboundedArrayQueue<>(1024);
    private List<GroupCommitRequest> pending = new ArrayList<>();
    private volatile FlushObserver observer = FlushObserver.NONE;
    /** Metrics, written by the service thread only. */
    private volatile long forces;
    private volatile long requestsFlushed;

    public GroupCommitService(FlushTarget target, FailStop failStop, FlushDiskWatcher watcher,
                              Executor completionExecutor) {
        super("GroupCommitService", failStop);
        this.target = target;
        this.failStop = failStop;
        this.watcher = watcher;
        this.completionExecutor = completionExecutor;
        failStop.onFailure(this::wakeup);
    }

    /** Who hears of each force (metrics); set before start. */
    public void setObserver(FlushObserver observer) {
        this.observer = observer;
    }

    /** Queues a wait for force() to cover {@code request.nextOffset()} and wakes the flusher. */
    public void submit(GroupCommitRequest request) {
        watcher.watch(request);
        requests.offer(request);
        // Queued before the wakeup: one that finds a wakeup pending knows the service has not yet cleared it, so
        // the drain after its next wait takes this request.
        wakeup();
    }

    @Override
    protected int doWork() {
        int drained = requests.drain(pending::add, MAX_DRAIN);
        if (failStop.failed()) {
            failPending("CommitLog is read-only after a write failure");
            return drained;
        }
        boolean dirty = target.appendedOffset() > target.flushedOffset();
        if (dirty) {
            long begin = System.nanoTime();
            if (!forceAll()) {
                return drained + 1;
            }
            observer.flushed(System.nanoTime() - begin, pending.size());
        }
        completeCovered(target.flushedOffset());
        return drained + (dirty ? 1 : 0);
    }

    @Override
    protected long idleWaitMs() {
        return IDLE_WAIT_MS;
    }

    @Override
    protected void onShutdown() {
        // Whatever was appended before the store stopped accepting gets its force and its answer.
        doWork();
        if (!pending.isEmpty()) {
            failPending("CommitLog shut down before force() covered the record");
        }
    }

    /** Commits and forces everything appended so far; false if the store failed. */
    private boolean forceAll() {
        long goal = target.appendedOffset();
        long from = target.flushedOffset();
        String operation = "commit";
        try {
            while (true) {
                long before = target.flushedOffset();
                operation = "commit";
                target.commit(0);
                operation = "force";
                long after = target.flush(0);
                forces++;
                if (after >= goal || after == before) {
                    return true;
                }
            }
        } catch (IOException e) {
            failStop.fail(operation, target.fileAt(from), from, e);
            failPending("CommitLog is read-only after a write failure");
            return false;
        }
    }

    /** Completes every request whose record ends at or before {@code flushedOffset}. */
    private void completeCovered(long flushedOffset) {
        if (pending.isEmpty()) {
            return;
        }
        List<GroupCommitRequest> covered = new ArrayList<>(pending.size());
        List<GroupCommitRequest> waiting = new ArrayList<>();
        for (GroupCommitRequest r : pending) {
            if (r.nextOffset() <= flushedOffset) {
                covered.add(r);
            } else if (!r.isDone()) {
                waiting.add(r);
            }
        }
        pending = waiting;
        requestsFlushed += covered.size();
        if (!covered.isEmpty()) {
            Runnable complete = () -> {
                for (GroupCommitRequest r : covered) {
                    r.future().complete(GroupCommitRequest.Outcome.FLUSHED);
                }
            };
            try {
                completionExecutor.execute(complete);
            } catch (RejectedExecutionException e) {
                complete.run();
            }
        }
    }

    private void failPending(String reason) {
        requests.drain(pending::add);
        if (pending.isEmpty()) {
            return;
        }
        StoreException failure = new StoreException(reason, failStop.cause());
        for (GroupCommitRequest r : pending) {
            r.future().completeExceptionally(failure);
        }
        pending = new ArrayList<>();
    }

    /** Rounds of force() run so far (a metric: requests per force shows how well commits group). */
    public long forceCount() {
        return forces;
    }

    /** Requests completed as flushed so far (a metric). */
    public long flushedRequestCount() {
        return requestsFlushed;
    }

    /** Requests drained but not yet answered (tests). */
    int pendingCount() {
        return pending.size() + requests.size();
    }
}
