package io.basalt.store.flush;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import io.basalt.common.service.ServiceThread;

/**
 * Transient store pool, ASYNC_FLUSH: moves appended bytes from the off-heap write buffer to the file
 * channel every {@code commitIntervalCommitLog} ms once {@code commitCommitLogLeastPages} pages are
 * pending, and everything at least every {@code commitCommitLogThoroughInterval} ms. Puts wake it
 * ({@code wakeCommitWhenPutMessage}). After a commit moved bytes it runs {@code onCommitted} (wake
 * the flusher and the dispatcher: readers only see committed bytes). On shutdown it commits all.
 *
 * <p>An {@link IOException} trips the {@link FailStop}, and so does an unexpected error of a round (the
 * FailStop is its error policy). Thread confinement as {@link ServiceThread}.
 */
public final class CommitRealTimeService extends ServiceThread {
    private final FlushTarget target;
    private final FailStop failStop;
    private final int intervalMs;
    private final LeastPagesSchedule schedule;
    private final Runnable onCommitted;
    /** Set by the first data wakeup after a round; later ones skip the wakeup (a lock and a signal). */
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();

    public CommitRealTimeService(FlushTarget target, FailStop failStop, int intervalMs, int leastPages,
                                 int thoroughIntervalMs, LongSupplier clockMs, Runnable onCommitted) {
        super("CommitRealTimeService", failStop);
        this.target = target;
        this.failStop = failStop;
        this.intervalMs = intervalMs;
        this.schedule = new LeastPagesSchedule(leastPages, thoroughIntervalMs, clockMs);
        this.onCommitted = onCommitted;
    }

    /** New appends are waiting in the write buffer ({@code wakeCommitWhenPutMessage}). */
    public void wakeupForData() {
        if (!wakeupRequested.getAndSet(true)) {
            wakeup();
        }
    }

    @Override
    protected int doWork() {
        wakeupRequested.set(false);
        return commit(schedule.nextRound()) ? 1 : 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** Paced by {@code commitIntervalCommitLog} (or a put's wakeup), not by how much a round moved. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        commit(0);
    }

    /** Commits what {@code least} allows; true if the committed offset moved. */
    private boolean commit(int least) {
        if (failStop.failed()) {
            return false;
        }
        long from = target.committedOffset();
        long after = from;
        try {
            long before;
            do {
                before = after;
                after = target.commit(least);
            } while (after > before);
        } catch (IOException e) {
            failStop.fail("commit", target.fileAt(from), from, e);
            return false;
        }
        if (after > from) {
            onCommitted.run();
            return true;
        }
        return false;
    }
}
