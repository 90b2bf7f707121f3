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
     * What a replication endpoint leaves behind when it stops (a master deposed, demoted or shut down): every put is
     * refused with SERVICE_NOT_AVAILABLE before anything is written. A put must never be answered PUT_OK, with no wait
     * at all, because the endpoint that would have waited for its replicas is gone: its bytes would be acknowledged and
     * then cut by the next master's truncation.
     */
    ReplicaWait STOPPED = new ReplicaWait() {
        @Override
        public CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result) {
            return CompletableFuture.completedFuture(PutMessageStatus.SERVICE_NOT_AVAILABLE);
        }

        @Override
        public PutMessageStatus admit(BrokerMessage message) {
            return PutMessageStatus.SERVICE_NOT_AVAILABLE;
        }

        @Override
        public String toString() {
            return "ReplicaWait.STOPPED";
        }
    };

    /**
     * Returns a future completed with PUT_OK once enough replicas hold everything up to
     * {@code result.nextOffset()}, or FLUSH_SLAVE_TIMEOUT / SLAVE_NOT_AVAILABLE.
     */
    CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result);

    /**
     * Asked before anything is written, for every put: null to go on with it, or the status that refuses it
     * (RocketMQ's controller mode answers IN_SYNC_REPLICAS_NOT_ENOUGH to a put with {@code WAIT=true} while the
     * SyncStateSet is smaller than {@code minInSyncReplicas}). A put admitted here is awaited by this same wait, even
     * when another is installed meanwhile. Called on the putting thread; must not block.
     */
    default PutMessageStatus admit(BrokerMessage message) {
        return null;
    }
}
