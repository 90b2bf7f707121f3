package io.basalt.broker.config;

import io.basalt.store.FlushDiskType;
import java.nio.file.Path;
import java.util.List;

/**
 * The store section of {@code broker.conf} (RocketMQ's {@code MessageStoreConfig} names), validated.
 * Immutable; obtained from {@link BrokerConfiguration#store()}. The broker assembly turns it into
 * the store's own configuration. Paths are absolute; durations are milliseconds unless noted.
 */
public final class StoreSettings {

    private final ConfigValues values;

    StoreSettings(ConfigValues values) {
        this.values = values;
    }

    public Path storePathRootDir() {
        return values.get(ConfigKeys.STORE_PATH_ROOT_DIR);
    }

    public Path storePathCommitLog() {
        return values.get(ConfigKeys.STORE_PATH_COMMIT_LOG);
    }

    /** A multiple of 4096, larger than {@link #maxMessageSize()}. */
    public int mappedFileSizeCommitLog() {
        return values.get(ConfigKeys.MAPPED_FILE_SIZE_COMMIT_LOG);
    }

    /** A multiple of the 20-byte ConsumeQueue entry (rounded up as RocketMQ does). */
    public int mappedFileSizeConsumeQueue() {
        return values.get(ConfigKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE);
    }

    public FlushDiskType flushDiskType() {
        return values.get(ConfigKeys.FLUSH_DISK_TYPE);
    }

    public int flushIntervalCommitLog() {
        return values.get(ConfigKeys.FLUSH_INTERVAL_COMMIT_LOG);
    }

    public int flushCommitLogLeastPages() {
        return values.get(ConfigKeys.FLUSH_COMMIT_LOG_LEAST_PAGES);
    }

    public int flushCommitLogThoroughInterval() {
        return values.get(ConfigKeys.FLUSH_COMMIT_LOG_THOROUGH_INTERVAL);
    }

    public boolean flushCommitLogTimed() {
        return values.get(ConfigKeys.FLUSH_COMMIT_LOG_TIMED);
    }

    public int commitIntervalCommitLog() {
        return values.get(ConfigKeys.COMMIT_INTERVAL_COMMIT_LOG);
    }

    public int commitCommitLogLeastPages() {
        return values.get(ConfigKeys.COMMIT_COMMIT_LOG_LEAST_PAGES);
    }

    public int commitCommitLogThoroughInterval() {
        return values.get(ConfigKeys.COMMIT_COMMIT_LOG_THOROUGH_INTERVAL);
    }

    public int syncFlushTimeout() {
        return values.get(ConfigKeys.SYNC_FLUSH_TIMEOUT);
    }

    public int maxMessageSize() {
        return values.get(ConfigKeys.MAX_MESSAGE_SIZE);
    }

    public long osPageCacheBusyTimeOutMills() {
        return values.get(ConfigKeys.OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS);
    }

    /** Already false unless this is an ASYNC_FLUSH master, where the pool does nothing. */
    public boolean transientStorePoolEnable() {
        return values.get(ConfigKeys.TRANSIENT_STORE_POOL_ENABLE);
    }

    public int transientStorePoolSize() {
        return values.get(ConfigKeys.TRANSIENT_STORE_POOL_SIZE);
    }

    public boolean warmMapedFileEnable() {
        return values.get(ConfigKeys.WARM_MAPED_FILE_ENABLE);
    }

    public int flushLeastPagesWhenWarmMapedFile() {
        return values.get(ConfigKeys.FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE);
    }

    public int flushIntervalConsumeQueue() {
        return values.get(ConfigKeys.FLUSH_INTERVAL_CONSUME_QUEUE);
    }

    public int flushConsumeQueueLeastPages() {
        return values.get(ConfigKeys.FLUSH_CONSUME_QUEUE_LEAST_PAGES);
    }

    public int flushConsumeQueueThoroughInterval() {
        return values.get(ConfigKeys.FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL);
    }

    public boolean messageIndexEnable() {
        return values.get(ConfigKeys.MESSAGE_INDEX_ENABLE);
    }

    public int maxHashSlotNum() {
        return values.get(ConfigKeys.MAX_HASH_SLOT_NUM);
    }

    public int maxIndexNum() {
        return values.get(ConfigKeys.MAX_INDEX_NUM);
    }

    public boolean checkCRCOnRecover() {
        return values.get(ConfigKeys.CHECK_CRC_ON_RECOVER);
    }

    public boolean enabledAppendPropCRC() {
        return values.get(ConfigKeys.ENABLED_APPEND_PROP_CRC);
    }

    /** Hours. */
    public int fileReservedTime() {
        return values.get(ConfigKeys.FILE_RESERVED_TIME);
    }

    /** Hours of the day (0..23, ascending, distinct) when expired files are deleted. */
    public List<Integer> deleteWhen() {
        return values.get(ConfigKeys.DELETE_WHEN);
    }

    /** Percent, 10..95. */
    public int diskMaxUsedSpaceRatio() {
        return values.get(ConfigKeys.DISK_MAX_USED_SPACE_RATIO);
    }
}
