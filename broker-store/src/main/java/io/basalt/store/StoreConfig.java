package io.basalt.store;

import io.basalt.store.commitlog.RecordFormat;
import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ConfigReader;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.ConfigValues.Source;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The immutable configuration of the message store, built only from the resolved values of
 * {@link StoreKeys} ({@link #from}), which declare every key's name, default and range once.
 * Accessor names are RocketMQ's {@code MessageStoreConfig} property names, as written in
 * {@code broker.conf}. Tests build one with {@link #builder()}, which reads its settings through
 * the same table, so a builder can never accept what {@code broker.conf} would refuse.
 *
 * <p>Thread-safe.
 */
public final class StoreConfig {
    /** Bytes of an OS page, the unit of the "least pages" thresholds. */
    public static final int OS_PAGE_SIZE = 4096;
    /** Bytes of one ConsumeQueue entry; a ConsumeQueue file holds a whole number of them. */
    private static final int CONSUME_QUEUE_UNIT_SIZE = 20;

    private final ConfigValues values;
    private final String storePathRootDir;
    private final String storePathCommitLog;
    private final int mappedFileSizeCommitLog;
    private final int mappedFileSizeConsumeQueue;
    private final int maxOpenConsumeQueueFiles;
    private final FlushDiskType flushDiskType;
    private final int flushIntervalCommitLog;
    private final int flushCommitLogLeastPages;
    private final int flushCommitLogThoroughInterval;
    private final boolean flushCommitLogTimed;
    private final int commitIntervalCommitLog;
    private final int commitCommitLogLeastPages;
    private final int commitCommitLogThoroughInterval;
    private final boolean wakeCommitWhenPutMessage;
    private final long syncFlushTimeout;
    private final int maxMessageSize;
    private final long osPageCacheBusyTimeOutMills;
    private final boolean transientStorePoolEnable;
    private final int transientStorePoolSize;
    private final boolean warmMapedFileEnable;
    private final int flushLeastPagesWhenWarmMapedFile;
    private final boolean checkCRCOnRecover;
    private final boolean recoverySkipCorruptRecords;
    private final boolean checkCrcOnRead;
    private final boolean enabledAppendPropCRC;
    private final int flushIntervalConsumeQueue;
    private final int flushConsumeQueueLeastPages;
    private final int flushConsumeQueueThoroughInterval;
    private final boolean messageIndexEnable;
    private final int maxHashSlotNum;
    private final int maxIndexNum;
    private final int maxMsgsNumBatch;
    private final int maxTransferBytesOnMessageInMemory;
    private final int maxTransferCountOnMessageInMemory;
    private final int maxTransferBytesOnMessageInDisk;
    private final int maxTransferCountOnMessageInDisk;
    private final int accessMessageInMemoryMaxRatio;
    private final int fileReservedTime;
    private final String deleteWhen;
    private final int diskMaxUsedSpaceRatio;
    private final int diskSpaceCleanForciblyRatio;
    private final int diskSpaceWarningLevelRatio;
    private final boolean cleanFileForciblyEnable;
    private final int cleanResourceInterval;
    private final int deleteCommitLogFilesInterval;
    private final int destroyMapedFileIntervalForcibly;
    private final DelayLevels delayLevels;
    private final boolean timerWheelEnable;
    private final int timerPrecisionMs;
    private final int timerMaxDelaySec;
    private final int timerRollWindowSlot;
    private final int mappedFileSizeTimerLog;
    private final int timerFlushIntervalMs;
    private final int timerGetMessageThreadNum;
    private final int timerPutMessageThreadNum;
    private final int timerCongestNumEachSlot;
    private final boolean timerStopEnqueue;
    private final boolean timerStopDequeue;
    private final boolean timerSkipUnknownError;
    private final int timerProgressLogIntervalMs;
    private final long disappearTimeAfterStart;

    private StoreConfig(ConfigValues values) {
        this.values = values;
        this.storePathRootDir = values.get(StoreKeys.STORE_PATH_ROOT_DIR).toString();
        this.storePathCommitLog = values.get(StoreKeys.STORE_PATH_COMMIT_LOG).toString();
        this.mappedFileSizeCommitLog = values.get(StoreKeys.MAPPED_FILE_SIZE_COMMIT_LOG);
        this.mappedFileSizeConsumeQueue = values.get(StoreKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE);
        this.maxOpenConsumeQueueFiles = values.get(StoreKeys.MAX_OPEN_CONSUME_QUEUE_FILES);
        this.flushDiskType = values.get(StoreKeys.FLUSH_DISK_TYPE);
        this.flushIntervalCommitLog = values.get(StoreKeys.FLUSH_INTERVAL_COMMIT_LOG);
        this.flushCommitLogLeastPages = values.get(StoreKeys.FLUSH_COMMIT_LOG_LEAST_PAGES);
        this.flushCommitLogThoroughInterval = values.get(StoreKeys.FLUSH_COMMIT_LOG_THOROUGH_INTERVAL);
        this.flushCommitLogTimed = values.get(StoreKeys.FLUSH_COMMIT_LOG_TIMED);
        this.commitIntervalCommitLog = values.get(StoreKeys.COMMIT_INTERVAL_COMMIT_LOG);
        this.commitCommitLogLeastPages = values.get(StoreKeys.COMMIT_COMMIT_LOG_LEAST_PAGES);
        this.commitCommitLogThoroughInterval = values.get(StoreKeys.COMMIT_COMMIT_LOG_THOROUGH_INTERVAL);
        this.wakeCommitWhenPutMessage = values.get(StoreKeys.WAKE_COMMIT_WHEN_PUT_MESSAGE);
        this.syncFlushTimeout = values.get(StoreKeys.SYNC_FLUSH_TIMEOUT);
        this.maxMessageSize = values.get(StoreKeys.MAX_MESSAGE_SIZE);
        this.osPageCacheBusyTimeOutMills = values.get(StoreKeys.OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS);
        this.transientStorePoolEnable = values.get(StoreKeys.TRANSIENT_STORE_POOL_ENABLE);
        this.transientStorePoolSize = values.get(StoreKeys.TRANSIENT_STORE_POOL_SIZE);
        this.warmMapedFileEnable = values.get(StoreKeys.WARM_MAPED_FILE_ENABLE);
        this.flushLeastPagesWhenWarmMapedFile = values.get(StoreKeys.FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE);
        this.checkCRCOnRecover = values.get(StoreKeys.CHECK_CRC_ON_RECOVER);
        this.recoverySkipCorruptRecords = values.get(StoreKeys.RECOVERY_SKIP_CORRUPT_RECORDS);
        this.checkCrcOnRead = values.get(StoreKeys.CHECK_CRC_ON_READ);
        this.enabledAppendPropCRC = values.get(StoreKeys.ENABLED_APPEND_PROP_CRC);
        this.flushIntervalConsumeQueue = values.get(StoreKeys.FLUSH_INTERVAL_CONSUME_QUEUE);
        this.flushConsumeQueueLeastPages = values.get(StoreKeys.FLUSH_CONSUME_QUEUE_LEAST_PAGES);
        this.flushConsumeQueueThoroughInterval = values.get(StoreKeys.FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL);
        this.messageIndexEnable = values.get(StoreKeys.MESSAGE_INDEX_ENABLE);
        this.maxHashSlotNum = values.get(StoreKeys.MAX_HASH_SLOT_NUM);
        this.maxIndexNum = values.get(StoreKeys.MAX_INDEX_NUM);
        this.maxMsgsNumBatch = values.get(StoreKeys.MAX_MSGS_NUM_BATCH);
        this.maxTransferBytesOnMessageInMemory = values.get(StoreKeys.MAX_TRANSFER_BYTES_ON_MESSAGE_IN_MEMORY);
        this.maxTransferCountOnMessageInMemory = values.get(StoreKeys.MAX_TRANSFER_COUNT_ON_MESSAGE_IN_MEMORY);
        this.maxTransferBytesOnMessageInDisk = values.get(StoreKeys.MAX_TRANSFER_BYTES_ON_MESSAGE_IN_DISK);
        this.maxTransferCountOnMessageInDisk = values.get(StoreKeys.MAX_TRANSFER_COUNT_ON_MESSAGE_IN_DISK);
        this.accessMessageInMemoryMaxRatio = values.get(StoreKeys.ACCESS_MESSAGE_IN_MEMORY_MAX_RATIO);
        this.fileReservedTime = values.get(StoreKeys.FILE_RESERVED_TIME);
        this.deleteWhen = StoreKeys.DELETE_WHEN.type().format(values.get(StoreKeys.DELETE_WHEN));
        this.diskMaxUsedSpaceRatio = values.get(StoreKeys.DISK_MAX_USED_SPACE_RATIO);
        this.diskSpaceCleanForciblyRatio = values.get(StoreKeys.DISK_SPACE_CLEAN_FORCIBLY_RATIO);
        this.diskSpaceWarningLevelRatio = values.get(StoreKeys.DISK_SPACE_WARNING_LEVEL_RATIO);
        this.cleanFileForciblyEnable = values.get(StoreKeys.CLEAN_FILE_FORCIBLY_ENABLE);
        this.cleanResourceInterval = values.get(StoreKeys.CLEAN_RESOURCE_INTERVAL);
        this.deleteCommitLogFilesInterval = values.get(StoreKeys.DELETE_COMMIT_LOG_FILES_INTERVAL);
        this.destroyMapedFileIntervalForcibly = values.get(StoreKeys.DESTROY_MAPED_FILE_INTERVAL_FORCIBLY);
        this.delayLevels = values.get(StoreKeys.MESSAGE_DELAY_LEVEL);
        this.timerWheelEnable = values.get(StoreKeys.TIMER_WHEEL_ENABLE);
        this.timerPrecisionMs = snapTimerPrecision(values.get(StoreKeys.TIMER_PRECISION_MS));
        this.timerMaxDelaySec = values.get(StoreKeys.TIMER_MAX_DELAY_SEC);
        this.timerRollWindowSlot = snapRollWindow(values.get(StoreKeys.TIMER_ROLL_WINDOW_SLOT));
        this.mappedFileSizeTimerLog = values.get(StoreKeys.MAPPED_FILE_SIZE_TIMER_LOG);
        this.timerFlushIntervalMs = values.get(StoreKeys.TIMER_FLUSH_INTERVAL_MS);
        this.timerGetMessageThreadNum = values.get(StoreKeys.TIMER_GET_MESSAGE_THREAD_NUM);
        this.timerPutMessageThreadNum = values.get(StoreKeys.TIMER_PUT_MESSAGE_THREAD_NUM);
        this.timerCongestNumEachSlot = values.get(StoreKeys.TIMER_CONGEST_NUM_EACH_SLOT);
        this.timerStopEnqueue = values.get(StoreKeys.TIMER_STOP_ENQUEUE);
        this.timerStopDequeue = values.get(StoreKeys.TIMER_STOP_DEQUEUE);
        this.timerSkipUnknownError = values.get(StoreKeys.TIMER_SKIP_UNKNOWN_ERROR);
        this.timerProgressLogIntervalMs = values.get(StoreKeys.TIMER_PROGRESS_LOG_INTERVAL_MS);
        this.disappearTimeAfterStart = values.get(StoreKeys.DISAPPEAR_TIME_AFTER_START);
        if (mappedFileSizeConsumeQueue % CONSUME_QUEUE_UNIT_SIZE != 0) {
            throw new IllegalArgumentException("mappedFileSizeConsumeQueue=" + mappedFileSizeConsumeQueue
                + " is not a multiple of the 20-byte ConsumeQueue entry");
        }
    }

    /**
     * The store's configuration from resolved values of (at least) {@link StoreKeys#TABLE}.
     *
     * @throws IllegalArgumentException if mappedFileSizeConsumeQueue is not a multiple of 20 (the
     *                                  broker rounds it up, with a warning, before it gets here)
     */
    public static StoreConfig from(ConfigValues values) {
        return new StoreConfig(values);
    }

    /** Every key at its default but those the builder sets. */
    /**
     * The largest record a CommitLog file of {@code fileSize} bytes holds: the file minus the minimum
     * end-of-file marker, which must still fit behind the last record. Bounds a message whatever
     * maxMessageSize says.
     */
    public static int largestRecord(int fileSize) {
        return fileSize - RecordFormat.END_FILE_MIN_BLANK_LENGTH;
    }

    public static Builder builder() {
        return new Builder(new LinkedHashMap<>());
    }

    /** A builder holding this configuration's values, to derive a changed copy. */
    public Builder toBuilder() {
        Map<String, String> settings = new LinkedHashMap<>();
        for (ConfigKey<?> key : StoreKeys.TABLE.keys()) {
            settings.put(key.name(), values.text(key));
        }
        return new Builder(settings);
    }

    /** {@link #storePathRootDir()} as a path. */
    public Path rootDir() {
        return Paths.get(storePathRootDir);
    }

    /** Directory of the CommitLog files ({@code storePathCommitLog}; defaults to {@code <storePathRootDir>/commitlog}). */
    public Path commitLogDir() {
        return Paths.get(storePathCommitLog);
    }

    /** Root of the store: commitlog/, consumequeue/, index/, checkpoint, abort (absolute). */
    public String storePathRootDir() {
        return storePathRootDir;
    }


    /** Size of one CommitLog file, bytes (a multiple of 4096). */
    public int mappedFileSizeCommitLog() {
        return mappedFileSizeCommitLog;
    }

    /** Size of one ConsumeQueue file, bytes (a multiple of the 20-byte entry). */
    public int mappedFileSizeConsumeQueue() {
        return mappedFileSizeConsumeQueue;
    }

    /** Most ConsumeQueue files open at once across the store. */
    public int maxOpenConsumeQueueFiles() {
        return maxOpenConsumeQueueFiles;
    }

    public FlushDiskType flushDiskType() {
        return flushDiskType;
    }

    /** Period of the ASYNC_FLUSH flusher, ms. */
    public int flushIntervalCommitLog() {
        return flushIntervalCommitLog;
    }

    /** Dirty 4 KiB pages needed before an ASYNC_FLUSH force. */
    public int flushCommitLogLeastPages() {
        return flushCommitLogLeastPages;
    }

    /** A full ASYNC_FLUSH force happens at least this often, ms. */
    public int flushCommitLogThoroughInterval() {
        return flushCommitLogThoroughInterval;
    }

    /** True: the async flusher sleeps its whole interval; false: appends may wake it. */
    public boolean flushCommitLogTimed() {
        return flushCommitLogTimed;
    }

    /** Period of the transient-store-pool commit service, ms. */
    public int commitIntervalCommitLog() {
        return commitIntervalCommitLog;
    }

    /** Dirty 4 KiB pages needed before a commit. */
    public int commitCommitLogLeastPages() {
        return commitCommitLogLeastPages;
    }

    /** A full commit happens at least this often, ms. */
    public int commitCommitLogThoroughInterval() {
        return commitCommitLogThoroughInterval;
    }

    /** Wake the transient-store-pool commit service on every put. */
    public boolean wakeCommitWhenPutMessage() {
        return wakeCommitWhenPutMessage;
    }

    /** How long a SYNC_FLUSH put waits for force() before FLUSH_DISK_TIMEOUT, ms. */
    public long syncFlushTimeout() {
        return syncFlushTimeout;
    }

    /** Largest accepted message body, bytes. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** Put lock held longer than this means "page cache busy", ms. */
    public long osPageCacheBusyTimeOutMills() {
        return osPageCacheBusyTimeOutMills;
    }

    public boolean transientStorePoolEnable() {
        return transientStorePoolEnable;
    }

    /** Off-heap buffers of the transient store pool. */
    public int transientStorePoolSize() {
        return transientStorePoolSize;
    }

    /** Prewarm new CommitLog files (Basalt default true; RocketMQ's is false). */
    public boolean warmMapedFileEnable() {
        return warmMapedFileEnable;
    }

    /** Pages written between forces while warming a file. */
    public int flushLeastPagesWhenWarmMapedFile() {
        return flushLeastPagesWhenWarmMapedFile;
    }

    public boolean checkCRCOnRecover() {
        return checkCRCOnRecover;
    }

    /** Whether recovery skips a corrupt CommitLog record followed by valid ones instead of refusing to start. */
    public boolean recoverySkipCorruptRecords() {
        return recoverySkipCorruptRecords;
    }

    /** Whether a pull checks each record's CRCs before serving it (Basalt's checkCrcOnRead, default true). */
    public boolean checkCrcOnRead() {
        return checkCrcOnRead;
    }

    /** Every appended record ends with the record CRC property (RocketMQ's enabledAppendPropCRC). */
    public boolean enabledAppendPropCRC() {
        return enabledAppendPropCRC;
    }

    /** The delay levels ({@code messageDelayLevel}): the dispatcher's deliver times and the schedule service's levels. */
    public DelayLevels delayLevels() {
        return delayLevels;
    }

    /** Period of the ConsumeQueue and index flush, ms. */
    public int flushIntervalConsumeQueue() {
        return flushIntervalConsumeQueue;
    }

    /** Pages written to a ConsumeQueue file before a periodic flush forces it (0: any). */
    public int flushConsumeQueueLeastPages() {
        return flushConsumeQueueLeastPages;
    }

    /** Period of the flush that forces every written ConsumeQueue file and advances logicsMsgTimestamp, ms. */
    public int flushConsumeQueueThoroughInterval() {
        return flushConsumeQueueThoroughInterval;
    }

    /** Build the IndexFile (query by key, view by id). */
    public boolean messageIndexEnable() {
        return messageIndexEnable;
    }

    /** Hash slots of one index file. */
    public int maxHashSlotNum() {
        return maxHashSlotNum;
    }

    /** Entries of one index file. */
    public int maxIndexNum() {
        return maxIndexNum;
    }

    /** Most messages one query by key returns. */
    public int maxMsgsNumBatch() {
        return maxMsgsNumBatch;
    }

    /** Most bytes one pull returns from the page cache. */
    public int maxTransferBytesOnMessageInMemory() {
        return maxTransferBytesOnMessageInMemory;
    }

    /** Most messages one pull returns from the page cache. */
    public int maxTransferCountOnMessageInMemory() {
        return maxTransferCountOnMessageInMemory;
    }

    /** Most bytes one pull returns from disk. */
    public int maxTransferBytesOnMessageInDisk() {
        return maxTransferBytesOnMessageInDisk;
    }

    /** Most messages one pull returns from disk. */
    public int maxTransferCountOnMessageInDisk() {
        return maxTransferCountOnMessageInDisk;
    }

    /** Percent of physical memory behind the log end still counted as in memory. */
    public int accessMessageInMemoryMaxRatio() {
        return accessMessageInMemoryMaxRatio;
    }

    /** Hours a CommitLog file is kept. */
    public int fileReservedTime() {
        return fileReservedTime;
    }

    /** Hours of the day, two digits separated by ';' ("04", "04;16"), when expired files are deleted. */
    public String deleteWhen() {
        return deleteWhen;
    }

    /** Disk usage percentage above which expired files are deleted at any hour, 10..95. */
    public int diskMaxUsedSpaceRatio() {
        return diskMaxUsedSpaceRatio;
    }

    /** Disk usage percentage above which files are deleted whatever their age, 30..85. */
    public int diskSpaceCleanForciblyRatio() {
        return diskSpaceCleanForciblyRatio;
    }

    /** Disk usage percentage above which puts fail fast, 35..90. */
    public int diskSpaceWarningLevelRatio() {
        return diskSpaceWarningLevelRatio;
    }

    public boolean cleanFileForciblyEnable() {
        return cleanFileForciblyEnable;
    }

    /** Period of the retention check, ms. */
    public int cleanResourceInterval() {
        return cleanResourceInterval;
    }

    /** Pause between deleting two CommitLog files, ms. */
    public int deleteCommitLogFilesInterval() {
        return deleteCommitLogFilesInterval;
    }

    /** How long deleting a file waits for its readers, ms. */
    public int destroyMapedFileIntervalForcibly() {
        return destroyMapedFileIntervalForcibly;
    }

    @Override
    public String toString() {
        return "StoreConfig{storePathRootDir=" + storePathRootDir
            + ", storePathCommitLog=" + storePathCommitLog
            + ", mappedFileSizeCommitLog=" + mappedFileSizeCommitLog
            + ", flushDiskType=" + flushDiskType
            + ", transientStorePoolEnable=" + transientStorePoolEnable
            + ", warmMapedFileEnable=" + warmMapedFileEnable
            + ", syncFlushTimeout=" + syncFlushTimeout
            + ", maxMessageSize=" + maxMessageSize + '}';
    }

    /**
     * Collects settings as {@code broker.conf} text; {@link #build()} reads them through
     * {@link StoreKeys#TABLE} and refuses what the file would refuse. Not thread-safe.
     */
    /** RocketMQ's setter: below 200 → 100, below 500 → 200, below 1000 → 500, else 1000. */
    static int snapTimerPrecision(int ms) {
        return ms < 200 ? 100 : ms < 500 ? 200 : ms < 1000 ? 500 : 1000;
    }

    /** RocketMQ's getter: a window below 2 slots or beyond the wheel's 604800 − 60 slots becomes 604740. */
    static int snapRollWindow(int slots) {
        int max = 604_800 - 60;
        return slots < 2 || slots > max ? max : slots;
    }

    /** Whether the timer wheel runs ({@code timerWheelEnable}). */
    public boolean timerWheelEnable() {
        return timerWheelEnable;
    }

    /** Slot width of the timer wheel, ms: 100, 200, 500 or 1000. */
    public int timerPrecisionMs() {
        return timerPrecisionMs;
    }

    /** Furthest a new timer may be ahead, s. */
    public int timerMaxDelaySec() {
        return timerMaxDelaySec;
    }

    /** Slots ahead beyond which a timer is rolled (snapped into [2, 604740]). */
    public int timerRollWindowSlot() {
        return timerRollWindowSlot;
    }

    /** Size of one timerlog file, bytes. */
    public int mappedFileSizeTimerLog() {
        return mappedFileSizeTimerLog;
    }

    /** Period of the timer flush, ms. */
    public int timerFlushIntervalMs() {
        return timerFlushIntervalMs;
    }

    public int timerGetMessageThreadNum() {
        return timerGetMessageThreadNum;
    }

    public int timerPutMessageThreadNum() {
        return timerPutMessageThreadNum;
    }

    /** Per-slot flow control threshold N (refuse at random above N, always at 2N). */
    public int timerCongestNumEachSlot() {
        return timerCongestNumEachSlot;
    }

    public boolean timerStopEnqueue() {
        return timerStopEnqueue;
    }

    public boolean timerStopDequeue() {
        return timerStopDequeue;
    }

    public boolean timerSkipUnknownError() {
        return timerSkipUnknownError;
    }

    /** Period of the timer progress log line, ms. */
    public int timerProgressLogIntervalMs() {
        return timerProgressLogIntervalMs;
    }

    /** Delay before the wheel delivers after start, ms (≤ 0: none). */
    public long disappearTimeAfterStart() {
        return disappearTimeAfterStart;
    }

    public static final class Builder {
        private final Map<String, String> settings;

        private Builder(Map<String, String> settings) {
            this.settings = settings;
        }

        private Builder set(ConfigKey<?> key, String text) {
            settings.put(key.name(), text);
            return this;
        }

        public Builder storePathRootDir(String value) {
            return set(StoreKeys.STORE_PATH_ROOT_DIR, value);
        }

        public Builder storePathCommitLog(String value) {
            return set(StoreKeys.STORE_PATH_COMMIT_LOG, value);
        }

        public Builder mappedFileSizeCommitLog(int value) {
            return set(StoreKeys.MAPPED_FILE_SIZE_COMMIT_LOG, String.valueOf(value));
        }

        public Builder mappedFileSizeConsumeQueue(int value) {
            return set(StoreKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE, String.valueOf(value));
        }

        public Builder maxOpenConsumeQueueFiles(int value) {
            return set(StoreKeys.MAX_OPEN_CONSUME_QUEUE_FILES, String.valueOf(value));
        }

        public Builder flushDiskType(FlushDiskType value) {
            return set(StoreKeys.FLUSH_DISK_TYPE, value.name());
        }

        public Builder flushIntervalCommitLog(int value) {
            return set(StoreKeys.FLUSH_INTERVAL_COMMIT_LOG, String.valueOf(value));
        }

        public Builder flushCommitLogLeastPages(int value) {
            return set(StoreKeys.FLUSH_COMMIT_LOG_LEAST_PAGES, String.valueOf(value));
        }

        public Builder flushCommitLogThoroughInterval(int value) {
            return set(StoreKeys.FLUSH_COMMIT_LOG_THOROUGH_INTERVAL, String.valueOf(value));
        }

        public Builder flushCommitLogTimed(boolean value) {
            return set(StoreKeys.FLUSH_COMMIT_LOG_TIMED, String.valueOf(value));
        }

        public Builder commitIntervalCommitLog(int value) {
            return set(StoreKeys.COMMIT_INTERVAL_COMMIT_LOG, String.valueOf(value));
        }

        public Builder commitCommitLogLeastPages(int value) {
            return set(StoreKeys.COMMIT_COMMIT_LOG_LEAST_PAGES, String.valueOf(value));
        }

        public Builder commitCommitLogThoroughInterval(int value) {
            return set(StoreKeys.COMMIT_COMMIT_LOG_THOROUGH_INTERVAL, String.valueOf(value));
        }

        public Builder wakeCommitWhenPutMessage(boolean value) {
            return set(StoreKeys.WAKE_COMMIT_WHEN_PUT_MESSAGE, String.valueOf(value));
        }

        public Builder syncFlushTimeout(long value) {
            return set(StoreKeys.SYNC_FLUSH_TIMEOUT, String.valueOf(value));
        }

        public Builder maxMessageSize(int value) {
            return set(StoreKeys.MAX_MESSAGE_SIZE, String.valueOf(value));
        }

        public Builder osPageCacheBusyTimeOutMills(long value) {
            return set(StoreKeys.OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS, String.valueOf(value));
        }

        public Builder transientStorePoolEnable(boolean value) {
            return set(StoreKeys.TRANSIENT_STORE_POOL_ENABLE, String.valueOf(value));
        }

        public Builder transientStorePoolSize(int value) {
            return set(StoreKeys.TRANSIENT_STORE_POOL_SIZE, String.valueOf(value));
        }

        public Builder warmMapedFileEnable(boolean value) {
            return set(StoreKeys.WARM_MAPED_FILE_ENABLE, String.valueOf(value));
        }

        public Builder flushLeastPagesWhenWarmMapedFile(int value) {
            return set(StoreKeys.FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE, String.valueOf(value));
        }

        public Builder checkCRCOnRecover(boolean value) {
            return set(StoreKeys.CHECK_CRC_ON_RECOVER, String.valueOf(value));
        }

        public Builder recoverySkipCorruptRecords(boolean value) {
            return set(StoreKeys.RECOVERY_SKIP_CORRUPT_RECORDS, String.valueOf(value));
        }

        public Builder checkCrcOnRead(boolean value) {
            return set(StoreKeys.CHECK_CRC_ON_READ, String.valueOf(value));
        }

        public Builder enabledAppendPropCRC(boolean value) {
            return set(StoreKeys.ENABLED_APPEND_PROP_CRC, String.valueOf(value));
        }

        public Builder messageDelayLevel(String value) {
            return set(StoreKeys.MESSAGE_DELAY_LEVEL, value);
        }

        public Builder flushIntervalConsumeQueue(int value) {
            return set(StoreKeys.FLUSH_INTERVAL_CONSUME_QUEUE, String.valueOf(value));
        }

        public Builder flushConsumeQueueLeastPages(int value) {
            return set(StoreKeys.FLUSH_CONSUME_QUEUE_LEAST_PAGES, String.valueOf(value));
        }

        public Builder flushConsumeQueueThoroughInterval(int value) {
            return set(StoreKeys.FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL, String.valueOf(value));
        }

        public Builder messageIndexEnable(boolean value) {
            return set(StoreKeys.MESSAGE_INDEX_ENABLE, String.valueOf(value));
        }

        public Builder maxHashSlotNum(int value) {
            return set(StoreKeys.MAX_HASH_SLOT_NUM, String.valueOf(value));
        }

        public Builder maxIndexNum(int value) {
            return set(StoreKeys.MAX_INDEX_NUM, String.valueOf(value));
        }

        public Builder maxMsgsNumBatch(int value) {
            return set(StoreKeys.MAX_MSGS_NUM_BATCH, String.valueOf(value));
        }

        public Builder maxTransferBytesOnMessageInMemory(int value) {
            return set(StoreKeys.MAX_TRANSFER_BYTES_ON_MESSAGE_IN_MEMORY, String.valueOf(value));
        }

        public Builder maxTransferCountOnMessageInMemory(int value) {
            return set(StoreKeys.MAX_TRANSFER_COUNT_ON_MESSAGE_IN_MEMORY, String.valueOf(value));
        }

        public Builder maxTransferBytesOnMessageInDisk(int value) {
            return set(StoreKeys.MAX_TRANSFER_BYTES_ON_MESSAGE_IN_DISK, String.valueOf(value));
        }

        public Builder maxTransferCountOnMessageInDisk(int value) {
            return set(StoreKeys.MAX_TRANSFER_COUNT_ON_MESSAGE_IN_DISK, String.valueOf(value));
        }

        public Builder accessMessageInMemoryMaxRatio(int value) {
            return set(StoreKeys.ACCESS_MESSAGE_IN_MEMORY_MAX_RATIO, String.valueOf(value));
        }

        public Builder fileReservedTime(int value) {
            return set(StoreKeys.FILE_RESERVED_TIME, String.valueOf(value));
        }

        public Builder deleteWhen(String value) {
            return set(StoreKeys.DELETE_WHEN, value);
        }

        public Builder diskMaxUsedSpaceRatio(int value) {
            return set(StoreKeys.DISK_MAX_USED_SPACE_RATIO, String.valueOf(value));
        }

        public Builder diskSpaceCleanForciblyRatio(int value) {
            return set(StoreKeys.DISK_SPACE_CLEAN_FORCIBLY_RATIO, String.valueOf(value));
        }

        public Builder diskSpaceWarningLevelRatio(int value) {
            return set(StoreKeys.DISK_SPACE_WARNING_LEVEL_RATIO, String.valueOf(value));
        }

        public Builder cleanFileForciblyEnable(boolean value) {
            return set(StoreKeys.CLEAN_FILE_FORCIBLY_ENABLE, String.valueOf(value));
        }

        public Builder cleanResourceInterval(int value) {
            return set(StoreKeys.CLEAN_RESOURCE_INTERVAL, String.valueOf(value));
        }

        public Builder deleteCommitLogFilesInterval(int value) {
            return set(StoreKeys.DELETE_COMMIT_LOG_FILES_INTERVAL, String.valueOf(value));
        }

        public Builder destroyMapedFileIntervalForcibly(int value) {
            return set(StoreKeys.DESTROY_MAPED_FILE_INTERVAL_FORCIBLY, String.valueOf(value));
        }

        public Builder timerWheelEnable(boolean value) {
            return set(StoreKeys.TIMER_WHEEL_ENABLE, String.valueOf(value));
        }

        public Builder timerPrecisionMs(int value) {
            return set(StoreKeys.TIMER_PRECISION_MS, String.valueOf(value));
        }

        public Builder timerMaxDelaySec(int value) {
            return set(StoreKeys.TIMER_MAX_DELAY_SEC, String.valueOf(value));
        }

        public Builder timerRollWindowSlot(int value) {
            return set(StoreKeys.TIMER_ROLL_WINDOW_SLOT, String.valueOf(value));
        }

        public Builder mappedFileSizeTimerLog(int value) {
            return set(StoreKeys.MAPPED_FILE_SIZE_TIMER_LOG, String.valueOf(value));
        }

        public Builder timerFlushIntervalMs(int value) {
            return set(StoreKeys.TIMER_FLUSH_INTERVAL_MS, String.valueOf(value));
        }

        public Builder timerGetMessageThreadNum(int value) {
            return set(StoreKeys.TIMER_GET_MESSAGE_THREAD_NUM, String.valueOf(value));
        }

        public Builder timerPutMessageThreadNum(int value) {
            return set(StoreKeys.TIMER_PUT_MESSAGE_THREAD_NUM, String.valueOf(value));
        }

        public Builder timerCongestNumEachSlot(int value) {
            return set(StoreKeys.TIMER_CONGEST_NUM_EACH_SLOT, String.valueOf(value));
        }

        public Builder timerStopEnqueue(boolean value) {
            return set(StoreKeys.TIMER_STOP_ENQUEUE, String.valueOf(value));
        }

        public Builder timerStopDequeue(boolean value) {
            return set(StoreKeys.TIMER_STOP_DEQUEUE, String.valueOf(value));
        }

        public Builder timerSkipUnknownError(boolean value) {
            return set(StoreKeys.TIMER_SKIP_UNKNOWN_ERROR, String.valueOf(value));
        }

        public Builder timerProgressLogIntervalMs(int value) {
            return set(StoreKeys.TIMER_PROGRESS_LOG_INTERVAL_MS, String.valueOf(value));
        }

        public Builder disappearTimeAfterStart(long value) {
            return set(StoreKeys.DISAPPEAR_TIME_AFTER_START, String.valueOf(value));
        }

        /** @throws IllegalArgumentException naming every key with a bad value and what is allowed */
        public StoreConfig build() {
            Map<String, Setting> chosen = new LinkedHashMap<>();
            settings.forEach((key, text) -> chosen.put(key, new Setting(key, text, Source.PROPERTIES, "StoreConfig.builder")));
            ConfigReader reader = new ConfigReader(StoreKeys.TABLE, ConfigEnvironment.system());
            ConfigValues.Builder values = reader.read(chosen);
            List<String> problems = reader.problems();
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("invalid store config: " + String.join("; ", problems));
            }
            return new StoreConfig(values.build());
        }
    }
}
