package io.basalt.store;

/**
 * One consume-queue entry as {@link MessageStore#readQueueEntries} returns it.
 *
 * @param queueOffset    logical offset of the entry in its queue
 * @param physicalOffset CommitLog offset of the record
 * @param size           record length, bytes
 * @param tagsCode       the TAGS hash, or for {@link DelayLevels#SCHEDULE_TOPIC} the deliver time (ms)
 */
public record QueueEntry(long queueOffset, long physicalOffset, int size, long tagsCode) {
}
