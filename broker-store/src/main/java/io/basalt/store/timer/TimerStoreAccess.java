package io.basalt.store.timer;

import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageResult;
import io.basalt.store.StoredMessage;
import io.basalt.store.queue.ConsumeQueueEntry;

import java.util.concurrent.CompletableFuture;

/**
 * What the timer wheel needs of its store: the {@code rmq_sys_wheel_timer} consume queue, CommitLog
 * records and bounds, the store's own put path and its clock. Implemented by the message store; every
 * method is thread-safe.
 */
public interface TimerStoreAccess {

    long nowMs();

    /** Logical offsets of {@code rmq_sys_wheel_timer} queue 0: first kept and next to be written. */
    long wheelQueueMinOffset();

    long wheelQueueMaxOffset();

    /** The entry at {@code offset} of {@code rmq_sys_wheel_timer} queue 0, or null. */
    ConsumeQueueEntry wheelQueueEntry(long offset);

    /** Store time of the entry at {@code offset}, or -1. */
    long wheelQueueStoreTimestamp(long offset);

    /** The record at {@code commitLogOffset}, decoded, or null when no record starts there. */
    StoredMessage read(long commitLogOffset);

    long commitLogMinOffset();

    long commitLogMaxOffset();

    /** Puts through the store's full put path (its transforms included). */
    CompletableFuture<PutMessageResult> put(BrokerMessage message);
}
