package io.basalt.store;

import static io.basalt.common.config.ConfigKey.computed;
import static io.basalt.common.config.ConfigKey.key;
import static io.basalt.common.config.ValueTypes.bool;
import static io.basalt.common.config.ValueTypes.hoursOfDay;
import static io.basalt.common.config.ValueTypes.integer;
import static io.basalt.common.config.ValueTypes.longInteger;
import static io.basalt.common.config.ValueTypes.oneOf;
import static io.basalt.common.config.ValueTypes.path;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ValueType;
import io.basalt.common.config.KeyTable;
import java.nio.file.Path;
import java.util.List;

/**
 * Every {@code broker.conf} key the store reads, one line each: the single declaration of its name,
 * type, range, default and meaning. {@link StoreConfig#from} turns their values into the store's
 * configuration (the broker's cross-key checks look at a few first). Names and defaults are
 * RocketMQ 5.2.0's {@code MessageStoreConfig} unless the description says "Basalt".
 * Ranges are Basalt's: RocketMQ accepts any number and sometimes clamps it silently; Basalt says
 * what is wrong instead.
 */
public final class StoreKeys {

    public static final String SECTION = "store";

    private static final int MAX_MS = 3_600_000;
    private static final int DAY_MS = 86_400_000;
    private static final int MAX = Integer.MAX_VALUE;

    // Layout
    public static final ConfigKey<Path> STORE_PATH_ROOT_DIR = key("storePathRootDir", SECTION, path(), "${user.home}/store",
        "Root of the store: commitlog/, consumequeue/, index/, config/, checkpoint, abort");
    public static final ConfigKey<Path> STORE_PATH_COMMIT_LOG = computed("storePathCommitLog", SECTION, path(),
        "<storePathRootDir>/commitlog", r -> r.get(StoreKeys.STORE_PATH_ROOT_DIR).resolve("commitlog").toString(),
        "Directory of the CommitLog files");
    public static final ConfigKey<Integer> MAPPED_FILE_SIZE_COMMIT_LOG = key("mappedFileSizeCommitLog", SECTION,
        integer(StoreConfig.OS_PAGE_SIZE, 2_147_479_552, StoreConfig.OS_PAGE_SIZE), "1073741824",
        "Size of one CommitLog file, bytes");
    public static final ConfigKey<Integer> MAPPED_FILE_SIZE_CONSUME_QUEUE = key("mappedFileSizeConsumeQueue", SECTION,
        integer(20, 2_147_483_640), "6000000",
        "Size of one ConsumeQueue file, bytes (rounded up to a multiple of the 20-byte entry)");
    public static final ConfigKey<Integer> MAX_OPEN_CONSUME_QUEUE_FILES = key("maxOpenConsumeQueueFiles", SECTION,
        integer(16, 1_000_000), "4096", "Basalt: most ConsumeQueue files open at once across all queues; the least recently"
        + " used idle one is flushed and closed to open another (keep it well under the process's open-file limit)");

    // Flush and commit
    public static final ConfigKey<FlushDiskType> FLUSH_DISK_TYPE = key("flushDiskType", SECTION, oneOf(FlushDiskType.class),
        "ASYNC_FLUSH", "ASYNC_FLUSH (acknowledge from the page cache) or SYNC_FLUSH (acknowledge after the disk has it)");
    public static final ConfigKey<Integer> FLUSH_INTERVAL_COMMIT_LOG = key("flushIntervalCommitLog", SECTION, integer(1, MAX_MS),
        "500", "Period of the asynchronous CommitLog flush, ms");
    public static final ConfigKey<Integer> FLUSH_COMMIT_LOG_LEAST_PAGES = key("flushCommitLogLeastPages", SECTION,
        integer(0, 1_000_000), "4", "Dirty 4 KiB pages before an asynchronous flush");
    public static final ConfigKey<Integer> FLUSH_COMMIT_LOG_THOROUGH_INTERVAL = key("flushCommitLogThoroughInterval", SECTION,
        integer(0, DAY_MS), "10000", "Flush whatever is dirty at least this often, ms");
    public static final ConfigKey<Boolean> FLUSH_COMMIT_LOG_TIMED = key("flushCommitLogTimed", SECTION, bool(), "true",
        "The asynchronous flusher waits its period (true) or until woken by a write (false)");
    public static final ConfigKey<Integer> COMMIT_INTERVAL_COMMIT_LOG = key("commitIntervalCommitLog", SECTION,
        integer(1, MAX_MS), "200", "Period of committing the transient store pool's buffers to the file, ms");
    public static final ConfigKey<Integer> COMMIT_COMMIT_LOG_LEAST_PAGES = key("commitCommitLogLeastPages", SECTION,
        integer(0, 1_000_000), "4", "Dirty 4 KiB pages before a commit");
    public static final ConfigKey<Integer> COMMIT_COMMIT_LOG_THOROUGH_INTERVAL = key("commitCommitLogThoroughInterval", SECTION,
        integer(0, DAY_MS), "200", "Commit whatever is dirty at least this often, ms");
    public static final ConfigKey<Boolean> WAKE_COMMIT_WHEN_PUT_MESSAGE = key("wakeCommitWhenPutMessage", SECTION, bool(),
        "true", "Wake the transient store pool's commit on every append (true) or let it keep its period (false)");
    public static final ConfigKey<Long> SYNC_FLUSH_TIMEOUT = key("syncFlushTimeout", SECTION, longInteger(1, MAX_MS), "5000",
        "SYNC_FLUSH: wait this long for the disk before answering FLUSH_DISK_TIMEOUT, ms");
    public static final ConfigKey<Integer> MAX_MESSAGE_SIZE = key("maxMessageSize", SECTION, integer(1, MAX), "4194304",
        "Largest accepted message body, bytes (a record must also fit in one CommitLog file)");
    public static final ConfigKey<Long> OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS = key("osPageCacheBusyTimeOutMills", SECTION,
        longInteger(1, MAX_MS), "1000",
        "An append holding the put lock longer than this makes sends answer SYSTEM_BUSY (page cache busy), ms");
    public static final ConfigKey<Boolean> TRANSIENT_STORE_POOL_ENABLE = key("transientStorePoolEnable", SECTION, bool(),
        "false", "Write through off-heap buffers committed to the file (ASYNC_FLUSH masters only)");
    public static final ConfigKey<Integer> TRANSIENT_STORE_POOL_SIZE = key("transientStorePoolSize", SECTION, integer(1, 1024),
        "5", "Off-heap buffers of the transient store pool, each mappedFileSizeCommitLog bytes");
    public static final ConfigKey<Boolean> WARM_MAPED_FILE_ENABLE = key("warmMapedFileEnable", SECTION, bool(), "true",
        "Basalt default true (RocketMQ: false): keep the 64 MiB of the CommitLog file ahead of the writer prefaulted "
            + "and mlocked, and give back the pages it passed");
    public static final ConfigKey<Integer> FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE = key("flushLeastPagesWhenWarmMapedFile",
        SECTION, integer(1, MAX), "4096", "Pages written between forces while warming a file");
    public static final ConfigKey<Boolean> CHECK_CRC_ON_RECOVER = key("checkCRCOnRecover", SECTION, bool(), "true",
        "Check each record's body CRC while recovering the CommitLog");
    public static final ConfigKey<Boolean> RECOVERY_SKIP_CORRUPT_RECORDS = key("recoverySkipCorruptRecords", SECTION,
        bool(), "false", "Basalt: at start-up skip (and log) a corrupt CommitLog record below the durable point, "
            + "keeping the records after it; false: such a record stops start-up, naming file and offset");
    public static final ConfigKey<Boolean> CHECK_CRC_ON_READ = key("checkCrcOnRead", SECTION, bool(), "true",
        "Basalt: check each record's body CRC (and record CRC, if it has one) before a pull serves it; a corrupt "
            + "record is logged with file and offset, counted, and answered as an error instead of served");
    public static final ConfigKey<Boolean> ENABLED_APPEND_PROP_CRC = key("enabledAppendPropCRC", SECTION, bool(), "false",
        "End each appended record with the record CRC property (covers topic and properties); recovery requires it from then on");

    // ConsumeQueue, index and reads
    public static final ConfigKey<Integer> FLUSH_INTERVAL_CONSUME_QUEUE = key("flushIntervalConsumeQueue", SECTION,
        integer(1, MAX_MS), "1000", "Period of the ConsumeQueue and index flush, ms");
    public static final ConfigKey<Integer> FLUSH_CONSUME_QUEUE_LEAST_PAGES = key("flushConsumeQueueLeastPages", SECTION,
        integer(0, MAX), "2", "A periodic flush forces a ConsumeQueue file once this many pages were written since its "
            + "last force (0: every written file); the index's open file is left to the kernel and forced once full");
    public static final ConfigKey<Integer> FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL = key("flushConsumeQueueThoroughInterval",
        SECTION, integer(0, MAX_MS), "60000", "Period of the flush that forces every written ConsumeQueue file, ms; "
            + "only such a flush advances the checkpoint's logicsMsgTimestamp (where crash recovery re-dispatches from)");
    public static final ConfigKey<Boolean> MESSAGE_INDEX_ENABLE = key("messageIndexEnable", SECTION, bool(), "true",
        "Index messages by key and unique id (query by key, view by id)");
    public static final ConfigKey<Integer> MAX_HASH_SLOT_NUM = key("maxHashSlotNum", SECTION, integer(1, 50_000_000),
        "5000000", "Hash slots of one index file");
    public static final ConfigKey<Integer> MAX_INDEX_NUM = key("maxIndexNum", SECTION, integer(2, 100_000_000), "20000000",
        "Entries of one index file");
    public static final ConfigKey<Integer> MAX_MSGS_NUM_BATCH = key("maxMsgsNumBatch", SECTION, integer(1, 100_000), "64",
        "Most messages one query by key returns");
    public static final ConfigKey<Integer> MAX_TRANSFER_BYTES_ON_MESSAGE_IN_MEMORY = key("maxTransferBytesOnMessageInMemory",
        SECTION, integer(1, MAX), "262144", "Most bytes one pull returns from data in the page cache");
    public static final ConfigKey<Integer> MAX_TRANSFER_COUNT_ON_MESSAGE_IN_MEMORY = key("maxTransferCountOnMessageInMemory",
        SECTION, integer(1, 100_000), "32", "Most messages one pull returns from data in the page cache");
    public static final ConfigKey<Integer> MAX_TRANSFER_BYTES_ON_MESSAGE_IN_DISK = key("maxTransferBytesOnMessageInDisk",
        SECTION, integer(1, MAX), "65536", "Most bytes one pull returns from data on disk");
    public static final ConfigKey<Integer> MAX_TRANSFER_COUNT_ON_MESSAGE_IN_DISK = key("maxTransferCountOnMessageInDisk",
        SECTION, integer(1, 100_000), "8", "Most messages one pull returns from data on disk");
    public static final ConfigKey<Integer> ACCESS_MESSAGE_IN_MEMORY_MAX_RATIO = key("accessMessageInMemoryMaxRatio", SECTION,
        integer(0, 100), "40", "Data within this percentage of physical memory behind the log end counts as in memory: pulls of it get the"
        + " in-memory transfer limits, and a new consumer group starts at offset 0 only while a queue's first message does");

    // Retention and disk space
    public static final ConfigKey<Integer> FILE_RESERVED_TIME = key("fileReservedTime", SECTION, integer(1, 87_600), "72",
        "Keep CommitLog files at least this long, hours");
    public static final ConfigKey<List<Integer>> DELETE_WHEN = key("deleteWhen", SECTION, hoursOfDay(), "04",
        "Hours of the day when expired files are deleted, separated by ';'");
    public static final ConfigKey<Integer> DISK_MAX_USED_SPACE_RATIO = key("diskMaxUsedSpaceRatio", SECTION, integer(10, 95),
        "75", "Above this percentage of disk used, expired files are deleted at any hour");
    public static final ConfigKey<Integer> DISK_SPACE_CLEAN_FORCIBLY_RATIO = key("diskSpaceCleanForciblyRatio", SECTION,
        integer(30, 85), "85", "Above this percentage of disk used, the oldest files are deleted whatever their age");
    public static final ConfigKey<Integer> DISK_SPACE_WARNING_LEVEL_RATIO = key("diskSpaceWarningLevelRatio", SECTION,
        integer(35, 90), "90", "Above this percentage of disk used, sends fail until usage is back under diskSpaceCleanForciblyRatio");
    public static final ConfigKey<Boolean> CLEAN_FILE_FORCIBLY_ENABLE = key("cleanFileForciblyEnable", SECTION, bool(), "true",
        "Above diskSpaceCleanForciblyRatio, delete files that are not yet expired");
    public static final ConfigKey<Integer> CLEAN_RESOURCE_INTERVAL = key("cleanResourceInterval", SECTION, integer(1, MAX_MS),
        "10000", "Period of the retention check, ms");
    public static final ConfigKey<Integer> DELETE_COMMIT_LOG_FILES_INTERVAL = key("deleteCommitLogFilesInterval", SECTION,
        integer(0, MAX_MS), "100", "Pause between deleting two CommitLog files, ms");
    public static final ConfigKey<Integer> DESTROY_MAPED_FILE_INTERVAL_FORCIBLY = key("destroyMapedFileIntervalForcibly",
        SECTION, integer(0, DAY_MS), "120000",
        "How long a file to delete waits for its readers before the retention check retries it, ms (Basalt never unmaps under a reader)");

    // Delay levels
    public static final ConfigKey<DelayLevels> MESSAGE_DELAY_LEVEL = key("messageDelayLevel", SECTION, delayLevels(),
        DelayLevels.DEFAULT, "Delay levels 1, 2, ...: durations separated by single spaces, each a number with unit s, m, h or d;"
            + " level n waits in queue n-1 of SCHEDULE_TOPIC_XXXX and is delivered the n-th duration after it was stored");

    // Timer messages (the timer wheel)
    public static final ConfigKey<Boolean> TIMER_WHEEL_ENABLE = key("timerWheelEnable", SECTION, bool(), "true",
        "Run the timer wheel: messages with TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS wait in rmq_sys_wheel_timer"
            + " and are delivered when due; false refuses such messages (a store with pending timers then keeps them)");
    public static final ConfigKey<Integer> TIMER_PRECISION_MS = key("timerPrecisionMs", SECTION, integer(1, 1000), "1000",
        "Width of one wheel slot, ms, snapped as RocketMQ does to 100, 200, 500 or 1000 (<200, <500, <1000, 1000);"
            + " a timer is delivered at most about this late, never early. Fixed for an existing wheel: a change is refused at start");
    public static final ConfigKey<Integer> TIMER_MAX_DELAY_SEC = key("timerMaxDelaySec", SECTION, integer(1, MAX), "259200",
        "Furthest a new timer may be in the future, s; a later one is refused (MESSAGE_ILLEGAL)");
    public static final ConfigKey<Integer> TIMER_ROLL_WINDOW_SLOT = key("timerRollWindowSlot", SECTION, integer(0, MAX),
        "172800", "Timers further than this many slots ahead are parked and re-enqueued later (rolled); values below 2"
            + " or above 604740 become 604740, as in RocketMQ");
    public static final ConfigKey<Integer> MAPPED_FILE_SIZE_TIMER_LOG = key("mappedFileSizeTimerLog", SECTION,
        integer(68, MAX), "104857600", "Size of one timerlog/ file, bytes (52-byte units; a 16-byte blank ends a full file)");
    public static final ConfigKey<Integer> TIMER_FLUSH_INTERVAL_MS = key("timerFlushIntervalMs", SECTION, integer(1, MAX_MS),
        "1000", "Period of the timer log, wheel, timercheck and timermetrics flush, ms (what a crash re-delivers is at most"
            + " this much of work)");
    public static final ConfigKey<Integer> TIMER_GET_MESSAGE_THREAD_NUM = key("timerGetMessageThreadNum", SECTION,
        integer(1, 64), "3", "Threads reading due timer records back from the CommitLog");
    public static final ConfigKey<Integer> TIMER_PUT_MESSAGE_THREAD_NUM = key("timerPutMessageThreadNum", SECTION,
        integer(1, 64), "3", "Threads putting due timer messages back into their real topics (each keeps many puts in flight)");
    public static final ConfigKey<Integer> TIMER_CONGEST_NUM_EACH_SLOT = key("timerCongestNumEachSlot", SECTION,
        integer(1, MAX), String.valueOf(MAX), "Flow control: a slot holding more timers than this refuses new ones at random,"
            + " twice as many refuses all (WHEEL_TIMER_FLOW_CONTROL, answered SYSTEM_ERROR)");
    public static final ConfigKey<Boolean> TIMER_STOP_ENQUEUE = key("timerStopEnqueue", SECTION, bool(), "false",
        "Stop moving rmq_sys_wheel_timer entries into the wheel (they wait there; an operational switch)");
    public static final ConfigKey<Boolean> TIMER_STOP_DEQUEUE = key("timerStopDequeue", SECTION, bool(), "false",
        "Basalt: stop delivering due timers (they wait in the wheel; an operational switch; RocketMQ 5.2.0 has the"
            + " field but reads it from no broker.conf key)");
    public static final ConfigKey<Boolean> TIMER_SKIP_UNKNOWN_ERROR = key("timerSkipUnknownError", SECTION, bool(), "false",
        "On an unexpected error with one timer (unreadable entry, refused re-put) set it aside at once instead of after"
            + " a few retries with back-off; either way it is logged and counted and never blocks the wheel");
    public static final ConfigKey<Integer> TIMER_PROGRESS_LOG_INTERVAL_MS = key("timerProgressLogIntervalMs", SECTION,
        integer(1, DAY_MS), "10000", "Period of the timer progress log line (enqueue and read positions, lag), ms");
    public static final ConfigKey<Integer> DISAPPEAR_TIME_AFTER_START = key("disappearTimeAfterStart", SECTION,
        integer(-1, DAY_MS), "-1", "Delay before the timer wheel starts delivering after start-up, ms (-1 or 0: at once)");

    /** The store's keys, in documentation order. */
    public static final KeyTable TABLE = KeyTable.of(List.of(
        STORE_PATH_ROOT_DIR, STORE_PATH_COMMIT_LOG, MAPPED_FILE_SIZE_COMMIT_LOG, MAPPED_FILE_SIZE_CONSUME_QUEUE,
        MAX_OPEN_CONSUME_QUEUE_FILES,
        FLUSH_DISK_TYPE, FLUSH_INTERVAL_COMMIT_LOG, FLUSH_COMMIT_LOG_LEAST_PAGES, FLUSH_COMMIT_LOG_THOROUGH_INTERVAL,
        FLUSH_COMMIT_LOG_TIMED, COMMIT_INTERVAL_COMMIT_LOG, COMMIT_COMMIT_LOG_LEAST_PAGES, COMMIT_COMMIT_LOG_THOROUGH_INTERVAL,
        WAKE_COMMIT_WHEN_PUT_MESSAGE, SYNC_FLUSH_TIMEOUT, MAX_MESSAGE_SIZE, OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS,
        TRANSIENT_STORE_POOL_ENABLE, TRANSIENT_STORE_POOL_SIZE, WARM_MAPED_FILE_ENABLE, FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE,
        CHECK_CRC_ON_RECOVER, RECOVERY_SKIP_CORRUPT_RECORDS, CHECK_CRC_ON_READ, ENABLED_APPEND_PROP_CRC,
        FLUSH_INTERVAL_CONSUME_QUEUE, FLUSH_CONSUME_QUEUE_LEAST_PAGES, FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL,
        MESSAGE_INDEX_ENABLE, MAX_HASH_SLOT_NUM, MAX_INDEX_NUM, MAX_MSGS_NUM_BATCH,
        MAX_TRANSFER_BYTES_ON_MESSAGE_IN_MEMORY, MAX_TRANSFER_COUNT_ON_MESSAGE_IN_MEMORY, MAX_TRANSFER_BYTES_ON_MESSAGE_IN_DISK,
        MAX_TRANSFER_COUNT_ON_MESSAGE_IN_DISK, ACCESS_MESSAGE_IN_MEMORY_MAX_RATIO,
        FILE_RESERVED_TIME, DELETE_WHEN, DISK_MAX_USED_SPACE_RATIO, DISK_SPACE_CLEAN_FORCIBLY_RATIO,
        DISK_SPACE_WARNING_LEVEL_RATIO, CLEAN_FILE_FORCIBLY_ENABLE, CLEAN_RESOURCE_INTERVAL, DELETE_COMMIT_LOG_FILES_INTERVAL,
        DESTROY_MAPED_FILE_INTERVAL_FORCIBLY,
        TIMER_WHEEL_ENABLE, TIMER_PRECISION_MS, TIMER_MAX_DELAY_SEC, TIMER_ROLL_WINDOW_SLOT, MAPPED_FILE_SIZE_TIMER_LOG,
        TIMER_FLUSH_INTERVAL_MS, TIMER_GET_MESSAGE_THREAD_NUM, TIMER_PUT_MESSAGE_THREAD_NUM, TIMER_CONGEST_NUM_EACH_SLOT,
        TIMER_STOP_ENQUEUE, TIMER_STOP_DEQUEUE, TIMER_SKIP_UNKNOWN_ERROR, TIMER_PROGRESS_LOG_INTERVAL_MS,
        DISAPPEAR_TIME_AFTER_START, MESSAGE_DELAY_LEVEL));

    private StoreKeys() {
    }

    /** {@code messageDelayLevel}'s type: {@link DelayLevels#parse}, its error naming the malformed token. */
    private static ValueType<DelayLevels> delayLevels() {
        return new ValueType<>() {
            @Override
            public DelayLevels parse(String raw, ConfigEnvironment environment) throws ValueType.InvalidValueException {
                try {
                    return DelayLevels.parse(raw);
                } catch (IllegalArgumentException e) {
                    throw new ValueType.InvalidValueException("has a malformed " + e.getMessage());
                }
            }

            @Override
            public String allowed() {
                return "durations separated by single spaces, each a number followed by s, m, h or d, e.g. 1s 5s 10s 1m 2h";
            }
        };
    }
}
