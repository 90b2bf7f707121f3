package io.basalt.store.flush;

import io.basalt.store.FlushObserver;
import java.io.IOException;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.service.ServiceThread;
import io.basalt.store.StoreConfig;

/**
 * ASYNC_FLUSH's periodic write-out, in its two RocketMQ roles (one class, one instance per role):
 * <ul>
 *   <li>{@link #flusher} ({@code FlushRealTimeService}): forces the CommitLog every
 *       {@code flushIntervalCommitLog} ms when at least {@code flushCommitLogLeastPages} pages are dirty.
 *       With {@code flushCommitLogTimed=true} (RocketMQ's default) it waits its whole interval and
 *       {@link #wakeupForData()} does nothing; with false, a commit or put may wake it early.</li>
 *   <li>{@link #committer} ({@code CommitRealTimeService}, transient store pool only): moves appended
 *       bytes from the off-heap write buffer to the file channel every {@code commitIntervalCommitLog} ms
 *       once {@code commitCommitLogLeastPages} pages are pending; puts wake it
 *       ({@code wakeCommitWhenPutMessage}).</li>
 * </ul>
 * Each does everything at least every thorough interval ({@code ...ThoroughInterval} ms) and once
 * more on shutdown. After a round that moved bytes it tells {@code onMoved} (the committer wakes the
 * flusher and the dispatcher, since readers see only committed bytes; the flusher feeds the flush
 * metrics).
 *
 * <p>An {@link IOException} trips the {@link FailStop}, and so does an unexpected error of a round
 * (the FailStop is its error policy); afterwards the service moves nothing.
 *
 * <p>Thread confinement: {@link #wakeupForData()} from any thread, the rest on the service thread.
 */
public final class PeriodicWriteOutService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicWriteOutService.class);
    private static final long SLOW_ROUND_MS = 500;

    /** What a round moves on, and how far it got. */
    private enum Step {
        COMMIT("commit") {
            @Override
            long run(FlushTarget target, int leastPages) throws IOException {
                return target.commit(leastPages);
            }

            @Override
            long position(FlushTarget target) {
                return target.committedOffset();
            }

            @Override
            long pendingPages(FlushTarget target) {
                return pages(target.appendedOffset()) - pages(target.committedOffset());
            }
        },
        FORCE("force") {
            @Override
            long run(FlushTarget target, int leastPages) throws IOException {
                return target.flush(leastPages);
            }

            @Override
            long position(FlushTarget target) {
                return target.flushedOffset();
            }

            @Override
            long pendingPages(FlushTarget target) {
                return pages(target.committedOffset()) - pages(target.flushedOffset());
            }
        };

        final String operation;

        Step(String operation) {
            this.operation = operation;
        }

        abstract long run(FlushTarget target, int leastPages) throws IOException;

        abstract long position(FlushTarget target);

        /** Pages this step has left to move, counted as a round counts them against its least pages. */
        abstract long pendingPages(FlushTarget target);

        private static long pages(long offset) {
            return offset / StoreConfig.OS_PAGE_SIZE;
        }
    }

    /** Told after a round that moved bytes, with how long the round took; on the service thread. */
    @FunctionalInterface
    private interface MovedListener {
        void moved(long durationNanos);
    }

    private final Step step;
    private final FlushTarget target;
    private final FailStop failStop;
    private final int intervalMs;
    private final LeastPagesSchedule schedule;
    private final boolean wakeable;
    private final LongSupplier clockMs;
    private final MovedListener onMoved;
    private volatile FlushObserver observer = FlushObserver.NONE;

    private PeriodicWriteOutService(String name, Step step, FlushTarget target, FailStop failStop, int intervalMs,
                                    int leastPages, int thoroughIntervalMs, boolean wakeable, LongSupplier clockMs,
                                    Runnable afterCommit) {
        super(name, failStop);
        this.step = step;
        this.target = target;
        this.failStop = failStop;
        this.intervalMs = intervalMs;
        this.schedule = new LeastPagesSchedule(leastPages, thoroughIntervalMs, clockMs);
        this.wakeable = wakeable;
        this.clockMs = clockMs;
        this.onMoved = step == Step.FORCE ? nanos -> observer.flushed(nanos, 0) : nanos -> afterCommit.run();
    }

    /**
     * The flusher ({@code FlushRealTimeService}).
     *
     * @param timed {@code flushCommitLogTimed}: true waits the whole interval, false lets new data wake it
     */
    public static PeriodicWriteOutService flusher(FlushTarget target, FailStop failStop, int intervalMs,
                                                  int leastPages, int thoroughIntervalMs, boolean timed,
                                                  LongSupplier clockMs) {
        return new PeriodicWriteOutService("FlushRealTimeService", Step.FORCE, target, failStop, intervalMs,
            leastPages, thoroughIntervalMs, !timed, clockMs, () -> { });
    }

    /**
     * The committer ({@code CommitRealTimeService}) of a transient store pool.
     *
     * @param onCommitted runs after a commit moved bytes (wake the flusher)
     */
    public static PeriodicWriteOutService committer(FlushTarget target, FailStop failStop, int intervalMs,
                                                    int leastPages, int thoroughIntervalMs, LongSupplier clockMs,
                                                    Runnable onCommitted) {
        return new PeriodicWriteOutService("CommitRealTimeService", Step.COMMIT, target, failStop, intervalMs,
            leastPages, thoroughIntervalMs, true, clockMs, onCommitted);
    }

    /**
     * New data is there: wakes the service, unless it is a timed flusher or a round starting now would move nothing
     * (fewer pages pending than its least pages, and its thorough interval not yet passed). Without that check the
     * committer was woken, and its thread switched in, on every put (RocketMQ's {@code wakeCommitWhenPutMessage}),
     * to find less than its least pages and go back to sleep; now a put wakes it once per least-pages worth of data.
     */
    public void wakeupForData() {
        if (wakeable && !isWakeupPending() && schedule.worthARound(step.pendingPages(target))) {
            wakeup();
        }
    }

    /** Who hears of each force that wrote something (the flusher's metrics); set before start. */
    public void setObserver(FlushObserver observer) {
        this.observer = observer;
    }

    /** One round: moves bytes when enough pages are pending or the thorough interval has passed. */
    @Override
    protected int doWork() {
        return writeOut(schedule.nextRound()) ? 1 : 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** Paced by its interval (or a data wakeup), not by how much a round moved. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        writeOut(0);
    }

    /**
     * Runs the step once (the target crosses file boundaries itself); true if its position moved. Running it again
     * for what was appended meanwhile would chase the writer: a flush would force the folio being filled again.
     */
    private boolean writeOut(int leastPages) {
        if (failStop.failed()) {
            return false;
        }
        long from = step.position(target);
        long beginMs = clockMs.getAsLong();
        long beginNanos = System.nanoTime();
        try {
            step.run(target, leastPages);
        } catch (IOException e) {
            failStop.fail(step.operation, target.fileAt(from), from, e);
            return false;
        }
        boolean moved = step.position(target) > from;
        if (moved) {
            onMoved.moved(System.nanoTime() - beginNanos);
        }
        long costMs = clockMs.getAsLong() - beginMs;
        if (costMs > SLOW_ROUND_MS) {
            LOG.warn("{}: {} of CommitLog data costs {} ms", name(), step.operation, costMs);
        }
        return moved;
    }
}
