package io.basalt.store.spi;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.basalt.store.SelectedBuffer;

/**
 * The store as replication sees it: the raw CommitLog bytes, where they end, and the two hooks that
 * tie replication into the put path. A master reads with {@link #select} and waits for its slaves
 * through {@link #setReplicaWait}; a slave writes with {@link #appendReplicated} and cuts a divergent
 * tail with {@link #truncateTo}. Obtained from {@code MessageStore.replicatedLog()}; thread-safe.
 */
public interface ReplicatedLog {

    /**
     * A read-only view from {@code physicalOffset} to the readable end of its file, or null when
     * nothing is readable there. Release it when done.
     */
    SelectedBuffer select(long physicalOffset);

    /** Offset of the first byte still stored (0 when there is no file). */
    long minOffset();

    /** End of the bytes written to the files: what a slave has, what a master may send. */
    long committedOffset();

    /** Size of one CommitLog file; a replicated chunk never crosses one. */
    int fileSize();

    /** Registers a listener told whenever new bytes become readable. */
    void addAppendListener(AppendListener listener);

    /** Removes a listener {@link #addAppendListener} registered (a stopped endpoint's); no effect when absent. */
    void removeAppendListener(AppendListener listener);

    /** Installs the wait a put composes with its flush wait; {@link ReplicaWait#NONE} or null removes it. */
    void setReplicaWait(ReplicaWait wait);

    /**
     * Bounds what the dispatcher (ConsumeQueue, index: what consumers see) may take from the log, besides
     * the flush policy's limit: it dispatches only records ending at or below {@code limit}'s value, read
     * on every round. RocketMQ's controller mode uses this for its confirmOffset (with
     * {@code allAckInSyncStateSet}, consumers see only what every SyncStateSet member holds). Null
     * removes it (no bound, the default).
     */
    void setDispatchLimit(java.util.function.LongSupplier limit);

    /**
     * Slave: appends {@code data}'s remaining bytes, raw, at exactly {@code physicalOffset}, which must
     * be the log's end (or, for an empty log, the start of a file); the dispatcher then builds queues
     * and index from them.
     */
    ReplicaAppend appendReplicated(long physicalOffset, ByteBuffer data);

    /**
     * Slave after a master change: cuts the log back to {@code physicalOffset} (a record boundary both
     * sides share), with the queue and index entries beyond it. No-op when the log already ends there.
     */
    void truncateTo(long physicalOffset) throws IOException;

    /**
     * The next offset the dispatcher will take: everything below it is in the ConsumeQueues and the
     * index (consumers can see it).
     */
    long dispatchedOffset();

    /**
     * A slave becoming master: dispatches everything replicated so far and continues each queue's
     * offsets where the replicated log ended, so the first own put follows on.
     */
    void alignQueueOffsetsWithLog();
}
