package io.basalt.store.queue;

/**
 * One 20-byte ConsumeQueue entry: {@code [long physicalOffset][int size][long tagsCode]}.
 *
 * @param physicalOffset global CommitLog offset of the record
 * @param size            record length
 * @param tagsCode        hash code of the message's TAGS (0 without tags)
 */
public record ConsumeQueueEntry(long physicalOffset, int size, long tagsCode) {
    /** Bytes per entry on disk (RocketMQ's CQ_STORE_UNIT_SIZE). */
    public static final int SIZE = 20;

    /** Size RocketMQ writes into the entries that fill a first file up to the first real entry. */
    static final int PLACEHOLDER_SIZE = Integer.MAX_VALUE;

    /** True for a placeholder (an entry that stands for a message the queue never had). */
    public boolean isPlaceholder() {
        return size == PLACEHOLDER_SIZE && physicalOffset == 0;
    }

    /** True for an entry recovery accepts: RocketMQ's {@code offset >= 0 && size > 0}. */
    boolean isValid() {
        return physicalOffset >= 0 && size > 0;
    }
}
