package io.basalt.store.spi;

/** Outcome of {@link ReplicatedLog#appendReplicated}. */
public enum ReplicaAppend {
    /** The bytes are in the log at the offset they were sent for. */
    APPENDED,
    /** The offset is not this log's end: a gap or an overlap; nothing was written. */
    OFFSET_MISMATCH,
    /** The bytes would cross a file boundary (a master never sends that); nothing was written. */
    CROSSES_FILE,
    /** Stopped, failed, or a file could not be created; nothing was written. */
    NOT_WRITABLE
}
