package io.basalt.store;

/** When an acknowledged CommitLog append is made durable (RocketMQ's {@code flushDiskType}). */
public enum FlushDiskType {
    /** Acknowledge once the record is in the page cache; a background service forces periodically. */
    ASYNC_FLUSH,
    /** Acknowledge only after a force() covered the record (group commit). */
    SYNC_FLUSH
}
