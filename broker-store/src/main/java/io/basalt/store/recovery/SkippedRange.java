package io.basalt.store.recovery;

/**
 * CommitLog bytes {@code [from, to)} that recovery skipped under {@code recoverySkipCorruptRecords}:
 * a corrupt record (and whatever follows it) up to the next valid record at {@code to}. Nothing in
 * it is dispatched to the consume queues or the index.
 */
public record SkippedRange(long from, long to, String reason) {
}
