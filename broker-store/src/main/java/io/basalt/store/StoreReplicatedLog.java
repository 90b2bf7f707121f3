package io.basalt.store;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.spi.AppendListener;
import io.basalt.store.spi.ReplicaAppend;
import io.basalt.store.spi.ReplicaWait;
import io.basalt.store.spi.ReplicatedLog;

/**
 * The store's {@link ReplicatedLog}: raw reads, the hooks and offsets from the CommitLog; the slave's
 * writes through the store, which keeps its queues and dispatcher in step with the log.
 */
final class StoreReplicatedLog implements ReplicatedLog {
    private final MessageStore store;
    private final CommitLog commitLog;

    StoreReplicatedLog(MessageStore store, CommitLog commitLog) {
        this.store = store;
        this.commitLog = commitLog;
    }

    @Override
    public SelectedBuffer select(long physicalOffset) {
        return commitLog.select(physicalOffset);
    }

    @Override
    public long minOffset() {
        return commitLog.minOffset();
    }

    @Override
    public long committedOffset() {
        return commitLog.committedOffset();
    }

    @Override
    public int fileSize() {
        return commitLog.fileSize();
    }

    @Override
    public void addAppendListener(AppendListener listener) {
        commitLog.addAppendListener(listener);
    }

    @Override
    public void removeAppendListener(AppendListener listener) {
        commitLog.removeAppendListener(listener);
    }

    @Override
    public void setReplicaWait(ReplicaWait wait) {
        commitLog.setReplicaWait(wait);
    }

    @Override
    public void setDispatchLimit(java.util.function.LongSupplier limit) {
        store.setDispatchLimit(limit);
    }

    @Override
    public long dispatchedOffset() {
        return store.dispatchedOffset();
    }

    @Override
    public ReplicaAppend appendReplicated(long physicalOffset, ByteBuffer data) {
        return store.appendReplicated(physicalOffset, data);
    }

    @Override
    public void truncateTo(long physicalOffset) throws IOException {
        store.truncateTo(physicalOffset);
    }

    @Override
    public void alignQueueOffsetsWithLog() {
        store.alignQueueOffsetsWithLog();
    }
}
