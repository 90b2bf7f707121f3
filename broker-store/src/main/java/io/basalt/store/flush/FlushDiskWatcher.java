package io.basalt.store.flush;

import java.util.function.LongSupplier;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedArrayQueue;

import io.basalt.common.service.ServiceThread;
import io.basalt.store.StoreException;

/**
 * Times out SYNC_FLUSH waits: completes a {@link GroupCommitRequest} with
 * {@link GroupCommitRequest.Outcome#TIMED_OUT} once its deadline passed without a covering force.
 * It runs apart from the {@link GroupCommitService} so a put gets FLUSH_DISK_TIMEOUT even while
 * force() hangs. Requests are watched in submission order (their deadlines are in that order too).
 *
 * <p>Once the {@link FailStop} has tripped it fails every watched request at once (woken by the
 * latch), so a waiting put learns of the failure even if the group commit is stuck in force() or its
 * thread is gone. It is durability-critical itself: the FailStop is its error policy.
 *
 * <p>{@link #watch} from any thread; the rest on the service thread.
 */
public final class FlushDiskWatcher extends ServiceThread {
    private static final long CHECK_INTERVAL_MS = 10;

    private final MessagePassingQueue<GroupCommitRequest> watched = new MpscUnboundedArrayQueue<>(1024);
    private final LongSupplier nanoClock;
    private final FailStop failStop;

    public FlushDiskWatcher(LongSupplier nanoClock, FailStop failStop) {
        super("FlushDiskWatcher", failStop);
        this.nanoClock = nanoClock;
        this.failStop = failStop;
        failStop.onFailure(this::wakeup);
    }

    void watch(GroupCommitRequest request) {
        watched.offer(request);
    }

    @Override
    protected int doWork() {
        if (failStop.failed()) {
            return failAll();
        }
        int done = 0;
        GroupCommitRequest head;
        while ((head = watched.peek()) != null) {
            if (!head.isDone()) {
                if (nanoClock.getAsLong() - head.deadlineNanos() < 0) {
                    break;
                }
                head.future().complete(GroupCommitRequest.Outcome.TIMED_OUT);
            }
            watched.poll();
            done++;
        }
        return done;
    }

    private int failAll() {
        StoreException failure = null;
        int done = 0;
        GroupCommitRequest r;
        while ((r = watched.poll()) != null) {
            if (!r.isDone()) {
                if (failure == null) {
                    failure = new StoreException("CommitLog is read-only after a failure of "
                        + failStop.failedService(), failStop.cause());
                }
                r.future().completeExceptionally(failure);
            }
            done++;
        }
        return done;
    }

    @Override
    protected long idleWaitMs() {
        return CHECK_INTERVAL_MS;
    }
}
