package io.basalt.store.flush;

import java.util.function.LongSupplier;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedArrayQueue;

import io.basalt.common.service.ServiceThread;

/**
 * Times out SYNC_FLUSH waits: completes a {@link GroupCommitRequest} with
 * {@link GroupCommitRequest.Outcome#TIMED_OUT} once its deadline passed without a covering force.
 * It runs apart from the {@link GroupCommitService} so a put gets FLUSH_DISK_TIMEOUT even while
 * force() hangs. Requests are watched in submission order (their deadlines are in that order too).
 *
 * <p>{@link #watch} from any thread; the rest on the service thread.
 */
public final class FlushDiskWatcher extends ServiceThread {
    private static final long CHECK_INTERVAL_MS = 10;

    private final MessagePassingQueue<GroupCommitRequest> watched = new MpscUnboundedArrayQueue<>(1024);
    private final LongSupplier nanoClock;

    public FlushDiskWatcher(LongSupplier nanoClock) {
        super("FlushDiskWatcher");
        this.nanoClock = nanoClock;
    }

    void watch(GroupCommitRequest request) {
        watched.offer(request);
    }

    @Override
    protected int doWork() {
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

    @Override
    protected long idleWaitMs() {
        return CHECK_INTERVAL_MS;
    }
}
