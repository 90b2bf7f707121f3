package io.basalt.store;

import io.basalt.store.commitlog.CommitLog;

/**
 * Where an append put its record(s): the global offset of the first byte, the bytes written, the
 * first queue offset and how many messages. For a batch the records are contiguous and the queue
 * offsets consecutive. Immutable.
 *
 * @param physicalOffset      global CommitLog offset of the first record
 * @param wroteBytes       total bytes of the record(s)
 * @param queueOffset      consume-queue offset (logical) of the first message
 * @param messageCount     number of messages appended
 * @param storeTimestamp   broker clock at append, ms
 */
public record AppendMessageResult(long physicalOffset, int wroteBytes, long queueOffset, int messageCount,
                                  long storeTimestamp) {

    /** Global offset just past the last record: what a flush must reach for this append to be durable. */
    public long nextOffset() {
        return physicalOffset + wroteBytes;
    }
}
