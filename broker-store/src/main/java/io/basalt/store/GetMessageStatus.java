package io.basalt.store;

/** Outcome of {@link MessageStore#getMessage}, with RocketMQ's names (the broker maps them to pull responses). */
public enum GetMessageStatus {
    /** At least one message is returned. */
    FOUND,
    /** Entries were read but none passed the filter; pull again from the next-begin offset. */
    NO_MATCHED_MESSAGE,
    /** The queue points at records whose CommitLog file is being deleted. */
    MESSAGE_WAS_REMOVING,
    /** The offset is in range but its ConsumeQueue file could not be read (deleted meanwhile). */
    OFFSET_FOUND_NULL,
    /** The offset is beyond the queue's max offset + 1. */
    OFFSET_OVERFLOW_BADLY,
    /** The offset equals the queue's max offset: nothing new yet (long polling waits here). */
    OFFSET_OVERFLOW_ONE,
    /** The offset is below the queue's min offset (retention removed it). */
    OFFSET_TOO_SMALL,
    /** No such queue. */
    NO_MATCHED_LOGIC_QUEUE,
    /** The queue exists but has never held a message. */
    NO_MESSAGE_IN_QUEUE,
    /**
     * Basalt: the record at the next-begin offset is corrupt (its CRC no longer matches: bit rot) and is
     * not served; the broker answers an error the consumer retries after a pause, on the same offset.
     */
    MESSAGE_CORRUPT,
    /** RocketMQ 5.x: the offset was reset (not produced by this store; kept for the wire mapping). */
    OFFSET_RESET
}
