package io.basalt.store.queue;

/**
 * What the dispatcher learned about one CommitLog record: everything the ConsumeQueue and the
 * IndexFile need, and nothing else.
 *
 * @param topic              topic of the message
 * @param queueId            queue of the topic
 * @param physicalOffset    global CommitLog offset of the record's first byte
 * @param size               record length in bytes (TOTALSIZE)
 * @param tagsCode           hash code of the TAGS property (0 without tags), as stored in the ConsumeQueue
 * @param storeTimestamp     broker time of the append, ms
 * @param consumeQueueOffset logical offset of the message in its (topic, queueId)
 * @param keys               the KEYS property (space separated), or null
 * @param uniqKey            the UNIQ_KEY property, or null
 * @param sysFlag            RocketMQ's MessageSysFlag bits (transaction type in bits 2..3)
 */
public record DispatchRequest(String topic, int queueId, long physicalOffset, int size, long tagsCode,
                              long storeTimestamp, long consumeQueueOffset, String keys, String uniqKey,
                              int sysFlag) {

    private static final int TRANSACTION_PREPARED_TYPE = 0x1 << 2;
    private static final int TRANSACTION_ROLLBACK_TYPE = 0x3 << 2;
    private static final int TRANSACTION_MASK = 0x3 << 2;

    /** Ordinary and committed-transaction records go into a ConsumeQueue; half and rollback records do not. */
    public boolean goesToConsumeQueue() {
        int type = sysFlag & TRANSACTION_MASK;
        return type != TRANSACTION_PREPARED_TYPE && type != TRANSACTION_ROLLBACK_TYPE;
    }

    /** Every record except a rollback is indexed (RocketMQ indexes half messages too). */
    public boolean goesToIndex() {
        return (sysFlag & TRANSACTION_MASK) != TRANSACTION_ROLLBACK_TYPE;
    }

    /** End of the record in the CommitLog (exclusive). */
    public long commitLogEnd() {
        return physicalOffset + size;
    }
}
