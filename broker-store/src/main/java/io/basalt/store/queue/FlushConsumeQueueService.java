package io.basalt.store.queue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.basalt.store.index.IndexService;
import io.basalt.store.recovery.StoreCheckpoint;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * Flushes the ConsumeQueue and index files every {@code flushIntervalConsumeQueue} ms (RocketMQ's
 * FlushConsumeQueueService), and everything once more at shutdown. They are caches of the CommitLog, so
 * a lost tail is rebuilt by recovery; flushing bounds how much must be rebuilt after a power loss, which
 * is why it is resilient ({@link ErrorPolicy#resilient()}): a failed round is counted, logged and
 * retried, and never stops the store. The last flush at shutdown is the store's own step
 * ({@link #flushAndRecord()}), so that its failure keeps the abort marker.
 *
 * <p>What a round forces, as RocketMQ: a ConsumeQueue file once {@code flushConsumeQueueLeastPages}
 * pages were written to it, every written one each {@code flushConsumeQueueThoroughInterval} ms (with
 * a thousand topics most queues get a few entries a second, and forcing each every second made a
 * device write per queue per second); index files once full ({@link IndexService#flushFullFiles()}).
 * After a round it records in the checkpoint what is durable: {@code indexMsgTimestamp} (end time of
 * the newest full, flushed index file) always, {@code logicsMsgTimestamp} (store time of the last
 * record whose entry was written before the round) only after a thorough round, since only that one
 * forced every queue. The CommitLog writes the checkpoint file while running, the store at shutdown.
 */
public final class FlushConsumeQueueService extends ServiceThread {
    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final long intervalMs;
    private final int leastPages;
    private final long thoroughIntervalNanos;
    private final LongSupplier nanoClock;
    private final StoreCheckpoint checkpoint;
    private final LongSupplier committedStoreTimestamp;
    private long lastThoroughNanos;

    /**
     * @param leastPages              {@code flushConsumeQueueLeastPages}
     * @param thoroughIntervalMs      {@code flushConsumeQueueThoroughInterval}
     * @param index                   null when indexing is off
     * @param checkpoint              where to record what is durable, or null
     * @param committedStoreTimestamp the dispatcher's {@link ReputMessageService#lastStoreTimestamp()}
     */
    public FlushConsumeQueueService(ConsumeQueueStore queues, IndexService index, long intervalMs, int leastPages,
                                    long thoroughIntervalMs, StoreCheckpoint checkpoint,
                                    LongSupplier committedStoreTimestamp) {
        this(queues, index, intervalMs, leastPages, thoroughIntervalMs, checkpoint, committedStoreTimestamp,
            System::nanoTime);
    }

    FlushConsumeQueueService(ConsumeQueueStore queues, IndexService index, long intervalMs, int leastPages,
                             long thoroughIntervalMs, StoreCheckpoint checkpoint, LongSupplier committedStoreTimestamp,
                             LongSupplier nanoClock) {
        super("FlushConsumeQueueService", ErrorPolicy.resilient());
        this.queues = queues;
        this.index = index;
        this.intervalMs = intervalMs;
        this.leastPages = leastPages;
        this.thoroughIntervalNanos = TimeUnit.MILLISECONDS.toNanos(thoroughIntervalMs);
        this.nanoClock = nanoClock;
        this.checkpoint = checkpoint;
        this.committedStoreTimestamp = committedStoreTimestamp;
        this.lastThoroughNanos = nanoClock.getAsLong();
    }

    /** One periodic round; a failure goes to the error policy (counted, logged, retried). */
    @Override
    public int doWork() throws IOException {
        long now = nanoClock.getAsLong();
        boolean thorough = now - lastThoroughNanos >= thoroughIntervalNanos;
        // read before flushing: everything these values cover is then written by the flush
        long logicsTimestamp = committedStoreTimestamp.getAsLong();
        long indexTimestamp = index == null ? 0 : index.lastFullFileEndTimestamp();
        boolean allForced = queues.flush(thorough ? 0 : leastPages);
        if (index != null) {
            index.flushFullFiles();
        }
        if (thorough) {
            lastThoroughNanos = now;
        }
        record(allForced ? logicsTimestamp : 0, indexTimestamp);
        return 1;
    }

    /**
     * Forces every queue and index file, then records in the checkpoint what that made durable. The
     * store calls it once at shutdown, after this thread stopped, and sees its failure.
     */
    public void flushAndRecord() throws IOException {
        long logicsTimestamp = committedStoreTimestamp.getAsLong();
        long indexTimestamp = index == null ? 0 : index.lastFullFileEndTimestamp();
        queues.flush();
        if (index != null) {
            index.flush();
        }
        record(logicsTimestamp, indexTimestamp);
    }

    private void record(long logicsTimestamp, long indexTimestamp) {
        if (checkpoint != null) {
            if (logicsTimestamp > 0) {
                checkpoint.logicsMsgTimestamp(logicsTimestamp);
            }
            if (indexTimestamp > 0) {
                checkpoint.indexMsgTimestamp(indexTimestamp);
            }
        }
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** One flush per interval. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }
}
