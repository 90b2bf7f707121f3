package io.basalt.broker.transaction;

import java.util.Optional;

import io.basalt.store.StoredMessage;

/**
 * What is decided about half messages, shared by END_TRANSACTION and the back-check so that a transaction is
 * acted on once: a second COMMIT for a transaction already committed (a late original and a check's answer, a
 * client's retry, a commit whose op marker a crash lost) writes nothing more, and a check is not sent for a
 * transaction already decided. Thread-safe.
 */
public interface TransactionDecisions {

    /** A decision END_TRANSACTION acted on. */
    enum Decision { COMMIT, ROLLBACK }

    /**
     * The decision already made for the transaction of {@code half} (a half record or any check copy of it; the
     * transaction is its UNIQ_KEY): by this broker since it started, or, for a half message from before, found in
     * the store (its committed record in the real topic). Empty when the transaction is undecided.
     */
    Optional<Decision> decisionFor(StoredMessage half);

    /**
     * Whether the half record at {@code halfQueueOffset} is marked done, including a mark whose op marker is not
     * yet in {@code RMQ_SYS_TRANS_OP_HALF_TOPIC} (markers are written in batches).
     */
    boolean isMarkedDone(long halfQueueOffset);

    /**
     * Marks the half record {@code half} at {@code halfQueueOffset} done with {@code decision}: remembered at once,
     * its op marker written within {@code transactionOpBatchInterval}. For a commit, called only after the
     * committed record is stored.
     */
    void markDone(long halfQueueOffset, StoredMessage half, Decision decision);
}
