package io.basalt.store.queue;

import java.io.IOException;
import java.util.function.LongSupplier;

import io.basalt.store.index.IndexService;
import io.basalt.store.recovery.StoreCheckpoint;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * Forces the ConsumeQueue and index files every {@code flushIntervalConsumeQueue} ms (RocketMQ's
 * FlushConsumeQueueService), and once more at shutdown. They are caches of the CommitLog, so a lost
 * tail is rebuilt by recovery; flushing bounds how much must be rebuilt after a power loss, which is
 * why it is resilient ({@link ErrorPolicy#resilient()}): a failed round is counted, logged and retried,
 * and never stops the store. The last flush at shutdown is the store's own step
 * ({@link #flushAndRecord()}), so that its failure keeps the abort marker. After each flush it records in the checkpoint what the flush made durable, as RocketMQ does:
 * {@code logicsMsgTimestamp} (store time of the last record whose entry was committed before the
 * flush) and {@code indexMsgTimestamp} (end time of the newest full, flushed index file). The
 * CommitLog writes the checkpoint file while running, the store at shutdown.
 */
public final class FlushConsumeQueueService extends ServiceThread {
    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final long intervalMs;
    private final StoreCheckpoint checkpoint;
    private final LongSupplier committedStoreTimestamp;

    /**
     * @param index                   null when indexing is off
     * @param checkpoint              where to record what is durable, or null
     * @param committedStoreTimestamp the dispatcher's {@link ReputMessageService#lastStoreTimestamp()}
     */
    public FlushConsumeQueueService(ConsumeQueueStore queues, IndexService index, long intervalMs,
                                    StoreCheckpoint checkpoint, LongSupplier committedStoreTimestamp) {
        super("FlushConsumeQueueService", ErrorPolicy.resilient());
        this.queues = queues;
        this.index = index;
        this.intervalMs = intervalMs;
        this.checkpoint = checkpoint;
        this.committedStoreTimestamp = committedStoreTimestamp;
    }

    /** One flush round; a failure goes to the error policy (counted, logged, retried). */
    @Override
    public int doWork() throws IOException {
        flushAndRecord();
        return 1;
    }

    /**
     * Forces the queues and the index, then records in the checkpoint what that made durable. The
     * store calls it once more at shutdown, after this thread stopped, and sees its failure.
     */
    public void flushAndRecord() throws IOException {
        // read before flushing: everything these values cover is then written by the flush
        long logicsTimestamp = committedStoreTimestamp.getAsLong();
        long indexTimestamp = index == null ? 0 : index.lastFullFileEndTimestamp();
        queues.flush();
        if (index != null) {
            index.flush();
        }
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
