package io.basalt.store.spi;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageStatus;
import java.util.concurrent.CompletableFuture;

/**
 * The hook replication plugs into: a second wait, next to the flush wait, before a put completes.
 * Both waits run in parallel; the put's status is the first non-OK one of (flush, replica).
 * Called on the appending thread after the put lock is released; must not block.
 */
@FunctionalInterface
public interface ReplicaWait {
    /** No replication: completes PUT_OK at once. */
    ReplicaWait NONE = (message, result) -> CompletableFuture.completedFuture(PutMessageStatus.PUT_OK);

    /**
     * Returns a future completed with PUT_OK once enough replicas hold everything up to
     * {@code result.nextOffset()}, or FLUSH_SLAVE_TIMEOUT / SLAVE_NOT_AVAILABLE.
     */
    CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result);

    /**
     * Asked before anything is written: null to go on with the put, or the status that refuses it
     * (RocketMQ's controller mode answers IN_SYNC_REPLICAS_NOT_ENOUGH while the SyncStateSet is smaller
     * than {@code minInSyncReplicas}). Called on the putting thread; must not block.
     */
    default PutMessageStatus admit(BrokerMessage message) {
        return null;
    }
}
