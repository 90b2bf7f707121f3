package io.basalt.store.flush;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.service.ServiceThread;

/**
 * ASYNC_FLUSH: forces the CommitLog every {@code flushIntervalCommitLog} ms when at least
 * {@code flushCommitLogLeastPages} pages are dirty, and forces everything at least every
 * {@code flushCommitLogThoroughInterval} ms. With {@code flushCommitLogTimed=true} (RocketMQ's
 * default) it waits its whole interval and {@link #wakeupForData()} does nothing; with false, a
 * commit or put may wake it early. On shutdown it forces everything.
 *
 * <p>An {@link IOException} trips the {@link FailStop}, and so does an unexpected error of a round (the
 * FailStop is its error policy); afterwards this service forces nothing.
 * Thread confinement: {@link #wakeupForData()} from any thread, the rest on the service thread.
 */
public final class FlushRealTimeService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(FlushRealTimeService.class);
    private static final long SLOW_FLUSH_MS = 500;

    private final FlushTarget target;
    private final FailStop failStop;
    private final int intervalMs;
    private final LeastPagesSchedule schedule;
    private final boolean timed;
    private final LongSupplier clockMs;
    private volatile FlushObserver observer = FlushObserver.NONE;
    /** Set by the first data wakeup after a round; later ones skip the wakeup (a lock and a signal). */
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();

    public FlushRealTimeService(FlushTarget target, FailStop failStop, int intervalMs, int leastPages,
                                int thoroughIntervalMs, boolean timed, LongSupplier clockMs) {
        super("FlushRealTimeService", failStop);
        this.target = target;
        this.failStop = failStop;
        this.intervalMs = intervalMs;
        this.schedule = new LeastPagesSchedule(leastPages, thoroughIntervalMs, clockMs);
        this.timed = timed;
        this.clockMs = clockMs;
    }

    /** New data is there: wakes the flusher unless it runs in timed mode. */
    public void wakeupForData() {
        if (!timed && !wakeupRequested.getAndSet(true)) {
            wakeup();
        }
    }

    /** Who hears of each force that wrote something (metrics); set before start. */
    public void setObserver(FlushObserver observer) {
        this.observer = observer;
    }

    /** One round: forces when enough pages are dirty or the thorough interval has passed. */
    @Override
    protected int doWork() {
        wakeupRequested.set(false);
        return flush(schedule.nextRound()) ? 1 : 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** Paced by {@code flushIntervalCommitLog}, not by how much a round forced. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        flush(0);
    }

    /** Forces what {@code least} allows; true if the flushed offset moved. */
    private boolean flush(int least) {
        if (failStop.failed()) {
            return false;
        }
        long from = target.flushedOffset();
        long begin = clockMs.getAsLong();
        long beginNanos = System.nanoTime();
        try {
            long before;
            long after = from;
            do {
                before = after;
                after = target.flush(least);
            } while (after > before);
        } catch (IOException e) {
            failStop.fail("force", target.fileAt(from), from, e);
            return false;
        }
        boolean moved = target.flushedOffset() > from;
        if (moved) {
            observer.flushed(System.nanoTime() - beginNanos, 0);
        }
        long costMs = clockMs.getAsLong() - begin;
        if (costMs > SLOW_FLUSH_MS) {
            LOG.warn("Flush data to disk costs {} ms", costMs);
        }
        return moved;
    }
}
