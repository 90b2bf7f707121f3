package io.basalt.store.queue;

import java.io.IOException;
import java.util.function.LongSupplier;

import io.basalt.store.index.IndexService;
import io.basalt.store.recovery.StoreCheckpoint;
import io.basalt.common.service.ServiceThread;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forces the ConsumeQueue and index files every {@code flushIntervalConsumeQueue} ms (RocketMQ's
 * FlushConsumeQueueService), and once more at shutdown. They are caches of the CommitLog, so a lost
 * tail is rebuilt by recovery; flushing bounds how much must be rebuilt after a power loss. After
 * each flush it records in the checkpoint what the flush made durable, as RocketMQ does:
 * {@code logicsMsgTimestamp} (store time of the last record whose entry was committed before the
 * flush) and {@code indexMsgTimestamp} (end time of the newest full, flushed index file). The
 * CommitLog writes the checkpoint file.
 */
public final class FlushConsumeQueueService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(FlushConsumeQueueService.class);

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
        super("FlushConsumeQueueService");
        this.queues = queues;
        this.index = index;
        this.intervalMs = intervalMs;
        this.checkpoint = checkpoint;
        this.committedStoreTimestamp = committedStoreTimestamp;
    }

    @Override
    public int doWork() {
        // read before flushing: everything these values cover is then written by the flush
        long logicsTimestamp = committedStoreTimestamp.getAsLong();
        long indexTimestamp = index == null ? 0 : index.lastFullFileEndTimestamp();
        try {
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
        } catch (IOException e) {
            // The CommitLog stays the source of truth; recovery rebuilds what did not reach the disk.
            LOG.error("Flushing consume queues or index failed: {}", e.toString());
        }
        return 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    @Override
    protected void onShutdown() {
        doWork();
    }
}
