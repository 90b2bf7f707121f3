package io.basalt.store.queue;

/** Reads the STORETIMESTAMP of the CommitLog record at an offset; used by the offset-for-time search. */
@FunctionalInterface
public interface StoreTimestampLookup {
    /** Returns the record's store timestamp in ms, or -1 if the record is no longer (or not yet) readable. */
    long storeTimestamp(long physicalOffset, int size);
}
