package io.basalt.store;

import io.basalt.store.commitlog.CommitLog;

/**
 * The outcome of a put, with RocketMQ's names (the broker maps them to response codes). Only
 * {@link #PUT_OK}, {@link #FLUSH_DISK_TIMEOUT}, {@link #FLUSH_SLAVE_TIMEOUT} and
 * {@link #SLAVE_NOT_AVAILABLE} mean the message was written; every other status means it was not.
 */
public enum PutMessageStatus {
    /** Written, and its flush (and replication) requirement met. */
    PUT_OK,
    /** Written, but force() did not cover it within {@code syncFlushTimeout}: stored, not yet durable. */
    FLUSH_DISK_TIMEOUT,
    /** Written, but no replica acknowledged it in time. */
    FLUSH_SLAVE_TIMEOUT,
    /** Written on this broker only; no replica could take it. */
    SLAVE_NOT_AVAILABLE,
    /** Not written: the store is shut down or read-only after an I/O failure. */
    SERVICE_NOT_AVAILABLE,
    /** Not written: the next CommitLog file could not be created. */
    CREATE_MAPPED_FILE_FAILED,
    /** Not written: too large, empty batch, or a topic that cannot be stored. */
    MESSAGE_ILLEGAL,
    /** Not written: the properties string is longer than 32767 bytes. */
    PROPERTIES_SIZE_EXCEEDED,
    /** Not written: the put lock has been held longer than {@code osPageCacheBusyTimeOutMills}. */
    OS_PAGE_CACHE_BUSY,
    /** Not written: an unexpected error. */
    UNKNOWN_ERROR,
    /**
     * Not written: a timer message beyond {@code timerMaxDelaySec}, with an unparsable time, or a cancel
     * (TIMER_DEL_UNIQKEY) not in the future (RocketMQ answers MESSAGE_ILLEGAL).
     */
    WHEEL_TIMER_MSG_ILLEGAL,
    /** Not written: the timer's slot is over {@code timerCongestNumEachSlot} (RocketMQ answers SYSTEM_ERROR). */
    WHEEL_TIMER_FLOW_CONTROL,
    /**
     * Not written: controller mode, and the SyncStateSet has fewer members than {@code minInSyncReplicas}
     * (RocketMQ answers SYSTEM_ERROR "in-sync replicas not enough").
     */
    IN_SYNC_REPLICAS_NOT_ENOUGH,
    /** Not written: a timer message while {@code timerWheelEnable=false} (RocketMQ answers SYSTEM_ERROR). */
    WHEEL_TIMER_NOT_ENABLE;

    /** True when the message is in the CommitLog (durable or not). */
    public boolean isStored() {
        return this == PUT_OK || this == FLUSH_DISK_TIMEOUT || this == FLUSH_SLAVE_TIMEOUT
            || this == SLAVE_NOT_AVAILABLE;
    }
}
