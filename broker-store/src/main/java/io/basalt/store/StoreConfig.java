package io.basalt.store;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;

/**
 * The immutable configuration of the message store. Field names are RocketMQ's
 * {@code MessageStoreConfig} property names (as written in {@code broker.conf}) and the defaults are
 * RocketMQ 5.2.0's, except {@code warmMapedFileEnable}, which Basalt turns on by default.
 *
 * <p>Build it with {@link #builder()} or {@link #fromProperties(Properties)}; {@link Builder#build()}
 * validates every value once and names the key and the bad value when it refuses. Thread-safe.
 */
public final class StoreConfig {
    /** Bytes of an OS page, the unit of the "least pages" thresholds. */
    public static final int OS_PAGE_SIZE = 4096;

    private final String storePathRootDir;
    private final String storePathCommitLog;
    private final int mappedFileSizeCommitLog;
    private final int mappedFileSizeConsumeQueue;
    private final FlushDiskType flushDiskType;
    private final int flushIntervalCommitLog;
    private final int flushCommitLogLeastPages;
    private final int flushCommitLogThoroughInterval;
    private final boolean flushCommitLogTimed;
    private final int commitIntervalCommitLog;
    private final int commitCommitLogLeastPages;
    private final int commitCommitLogThoroughInterval;
    private final long syncFlushTimeout;
    private final int maxMessageSize;
    private final long osPageCacheBusyTimeOutMills;
    private final boolean transientStorePoolEnable;
    private final int transientStorePoolSize;
    private final boolean fastFailIfNoBufferInStorePool;
    private final boolean warmMapedFileEnable;
    private final int flushLeastPagesWhenWarmMapedFile;
    private final boolean wakeCommitWhenPutMessage;
    private final boolean checkCRCOnRecover;
    private final boolean enabledAppendPropCRC;
    private final int flushIntervalConsumeQueue;
    private final int flushConsumeQueueLeastPages;
    private final int flushConsumeQueueThoroughInterval;
    private final int fileReservedTime;
    private final String deleteWhen;
    private final int diskMaxUsedSpaceRatio;
    private final int cleanResourceInterval;
    private final int deleteCommitLogFilesInterval;
    private final int destroyMapedFileIntervalForcibly;

    private StoreConfig(Builder b) {
        this.storePathRootDir = b.storePathRootDir;
        this.storePathCommitLog = b.storePathCommitLog != null
            ? b.storePathCommitLog
            : Paths.get(b.storePathRootDir, "commitlog").toString();
        this.mappedFileSizeCommitLog = b.mappedFileSizeCommitLog;
        this.mappedFileSizeConsumeQueue = b.mappedFileSizeConsumeQueue;
        this.flushDiskType = b.flushDiskType;
        this.flushIntervalCommitLog = b.flushIntervalCommitLog;
        this.flushCommitLogLeastPages = b.flushCommitLogLeastPages;
        this.flushCommitLogThoroughInterval = b.flushCommitLogThoroughInterval;
        this.flushCommitLogTimed = b.flushCommitLogTimed;
        this.commitIntervalCommitLog = b.commitIntervalCommitLog;
        this.commitCommitLogLeastPages = b.commitCommitLogLeastPages;
        this.commitCommitLogThoroughInterval = b.commitCommitLogThoroughInterval;
        this.syncFlushTimeout = b.syncFlushTimeout;
        this.maxMessageSize = b.maxMessageSize;
        this.osPageCacheBusyTimeOutMills = b.osPageCacheBusyTimeOutMills;
        this.transientStorePoolEnable = b.transientStorePoolEnable;
        this.transientStorePoolSize = b.transientStorePoolSize;
        this.fastFailIfNoBufferInStorePool = b.fastFailIfNoBufferInStorePool;
        this.warmMapedFileEnable = b.warmMapedFileEnable;
        this.flushLeastPagesWhenWarmMapedFile = b.flushLeastPagesWhenWarmMapedFile;
        this.wakeCommitWhenPutMessage = b.wakeCommitWhenPutMessage;
        this.checkCRCOnRecover = b.checkCRCOnRecover;
        this.enabledAppendPropCRC = b.enabledAppendPropCRC;
        this.flushIntervalConsumeQueue = b.flushIntervalConsumeQueue;
        this.flushConsumeQueueLeastPages = b.flushConsumeQueueLeastPages;
        this.flushConsumeQueueThoroughInterval = b.flushConsumeQueueThoroughInterval;
        this.fileReservedTime = b.fileReservedTime;
        this.deleteWhen = b.deleteWhen;
        this.diskMaxUsedSpaceRatio = b.diskMaxUsedSpaceRatio;
        this.cleanResourceInterval = b.cleanResourceInterval;
        this.deleteCommitLogFilesInterval = b.deleteCommitLogFilesInterval;
        this.destroyMapedFileIntervalForcibly = b.destroyMapedFileIntervalForcibly;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values, to derive a changed copy. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.storePathRootDir = storePathRootDir;
        b.storePathCommitLog = storePathCommitLog;
        b.mappedFileSizeCommitLog = mappedFileSizeCommitLog;
        b.mappedFileSizeConsumeQueue = mappedFileSizeConsumeQueue;
        b.flushDiskType = flushDiskType;
        b.flushIntervalCommitLog = flushIntervalCommitLog;
        b.flushCommitLogLeastPages = flushCommitLogLeastPages;
        b.flushCommitLogThoroughInterval = flushCommitLogThoroughInterval;
        b.flushCommitLogTimed = flushCommitLogTimed;
        b.commitIntervalCommitLog = commitIntervalCommitLog;
        b.commitCommitLogLeastPages = commitCommitLogLeastPages;
        b.commitCommitLogThoroughInterval = commitCommitLogThoroughInterval;
        b.syncFlushTimeout = syncFlushTimeout;
        b.maxMessageSize = maxMessageSize;
        b.osPageCacheBusyTimeOutMills = osPageCacheBusyTimeOutMills;
        b.transientStorePoolEnable = transientStorePoolEnable;
        b.transientStorePoolSize = transientStorePoolSize;
        b.fastFailIfNoBufferInStorePool = fastFailIfNoBufferInStorePool;
        b.warmMapedFileEnable = warmMapedFileEnable;
        b.flushLeastPagesWhenWarmMapedFile = flushLeastPagesWhenWarmMapedFile;
        b.wakeCommitWhenPutMessage = wakeCommitWhenPutMessage;
        b.checkCRCOnRecover = checkCRCOnRecover;
        b.enabledAppendPropCRC = enabledAppendPropCRC;
        b.flushIntervalConsumeQueue = flushIntervalConsumeQueue;
        b.flushConsumeQueueLeastPages = flushConsumeQueueLeastPages;
        b.flushConsumeQueueThoroughInterval = flushConsumeQueueThoroughInterval;
        b.fileReservedTime = fileReservedTime;
        b.deleteWhen = deleteWhen;
        b.diskMaxUsedSpaceRatio = diskMaxUsedSpaceRatio;
        b.cleanResourceInterval = cleanResourceInterval;
        b.deleteCommitLogFilesInterval = deleteCommitLogFilesInterval;
        b.destroyMapedFileIntervalForcibly = destroyMapedFileIntervalForcibly;
        return b;
    }

    /**
     * Reads the store keys of a {@code broker.conf}. Keys this class does not know are left to other
     * components (RocketMQ ignores unknown keys too); a known key with a bad value is refused with an
     * {@link IllegalArgumentException} naming the key and the value.
     */
    public static StoreConfig fromProperties(Properties props) {
        Builder b = new Builder();
        for (String key : props.stringPropertyNames()) {
            String value = props.getProperty(key).trim();
            switch (key) {
                case "storePathRootDir" -> b.storePathRootDir(value);
                case "storePathCommitLog" -> b.storePathCommitLog(value);
                case "mappedFileSizeCommitLog" -> b.mappedFileSizeCommitLog(parseInt(key, value));
                case "mappedFileSizeConsumeQueue" -> b.mappedFileSizeConsumeQueue(parseInt(key, value));
                case "flushDiskType" -> b.flushDiskType(parseFlushDiskType(key, value));
                case "flushIntervalCommitLog" -> b.flushIntervalCommitLog(parseInt(key, value));
                case "flushCommitLogLeastPages" -> b.flushCommitLogLeastPages(parseInt(key, value));
                case "flushCommitLogThoroughInterval" -> b.flushCommitLogThoroughInterval(parseInt(key, value));
                case "flushCommitLogTimed" -> b.flushCommitLogTimed(parseBoolean(key, value));
                case "commitIntervalCommitLog" -> b.commitIntervalCommitLog(parseInt(key, value));
                case "commitCommitLogLeastPages" -> b.commitCommitLogLeastPages(parseInt(key, value));
                case "commitCommitLogThoroughInterval" -> b.commitCommitLogThoroughInterval(parseInt(key, value));
                case "syncFlushTimeout" -> b.syncFlushTimeout(parseLong(key, value));
                case "maxMessageSize" -> b.maxMessageSize(parseInt(key, value));
                case "osPageCacheBusyTimeOutMills" -> b.osPageCacheBusyTimeOutMills(parseLong(key, value));
                case "transientStorePoolEnable" -> b.transientStorePoolEnable(parseBoolean(key, value));
                case "transientStorePoolSize" -> b.transientStorePoolSize(parseInt(key, value));
                case "fastFailIfNoBufferInStorePool" -> b.fastFailIfNoBufferInStorePool(parseBoolean(key, value));
                case "warmMapedFileEnable" -> b.warmMapedFileEnable(parseBoolean(key, value));
                case "flushLeastPagesWhenWarmMapedFile" -> b.flushLeastPagesWhenWarmMapedFile(parseInt(key, value));
                case "wakeCommitWhenPutMessage" -> b.wakeCommitWhenPutMessage(parseBoolean(key, value));
                case "checkCRCOnRecover" -> b.checkCRCOnRecover(parseBoolean(key, value));
                case "enabledAppendPropCRC" -> b.enabledAppendPropCRC(parseBoolean(key, value));
                case "flushIntervalConsumeQueue" -> b.flushIntervalConsumeQueue(parseInt(key, value));
                case "flushConsumeQueueLeastPages" -> b.flushConsumeQueueLeastPages(parseInt(key, value));
                case "flushConsumeQueueThoroughInterval" -> b.flushConsumeQueueThoroughInterval(parseInt(key, value));
                case "fileReservedTime" -> b.fileReservedTime(parseInt(key, value));
                case "deleteWhen" -> b.deleteWhen(value);
                case "diskMaxUsedSpaceRatio" -> b.diskMaxUsedSpaceRatio(parseInt(key, value));
                case "cleanResourceInterval" -> b.cleanResourceInterval(parseInt(key, value));
                case "deleteCommitLogFilesInterval" -> b.deleteCommitLogFilesInterval(parseInt(key, value));
                case "destroyMapedFileIntervalForcibly" -> b.destroyMapedFileIntervalForcibly(parseInt(key, value));
                default -> { }
            }
        }
        return b.build();
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw bad(key, value, "an int");
        }
    }

    private static long parseLong(String key, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw bad(key, value, "a long");
        }
    }

    private static boolean parseBoolean(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw bad(key, value, "true or false");
    }

    private static FlushDiskType parseFlushDiskType(String key, String value) {
        try {
            return FlushDiskType.valueOf(value);
        } catch (IllegalArgumentException e) {
            throw bad(key, value, "ASYNC_FLUSH or SYNC_FLUSH");
        }
    }

    private static IllegalArgumentException bad(String key, Object value, String expected) {
        return new IllegalArgumentException(
            "invalid store config " + key + "=" + value + ": expected " + expected);
    }

    // ---- values -------------------------------------------------------------------------------

    /** Root of the store: commitlog/, consumequeue/, index/, checkpoint, abort. */
    public String storePathRootDir() {
        return storePathRootDir;
    }

    /** Directory of the CommitLog files; defaults to {@code <storePathRootDir>/commitlog}. */
    public String storePathCommitLog() {
        return storePathCommitLog;
    }

    public Path rootDir() {
        return Paths.get(storePathRootDir);
    }

    public Path commitLogDir() {
        return Paths.get(storePathCommitLog);
    }

    /** Size of one CommitLog file in bytes (default 1 GiB). */
    public int mappedFileSizeCommitLog() {
        return mappedFileSizeCommitLog;
    }

    /** Size of one ConsumeQueue file in bytes (default 300000 entries × 20 bytes). */
    public int mappedFileSizeConsumeQueue() {
        return mappedFileSizeConsumeQueue;
    }

    public FlushDiskType flushDiskType() {
        return flushDiskType;
    }

    /** Period of the ASYNC_FLUSH flusher in ms (default 500). */
    public int flushIntervalCommitLog() {
        return flushIntervalCommitLog;
    }

    /** Dirty 4 KiB pages needed before an ASYNC_FLUSH force (default 4). */
    public int flushCommitLogLeastPages() {
        return flushCommitLogLeastPages;
    }

    /** A full ASYNC_FLUSH force happens at least this often, in ms (default 10000). */
    public int flushCommitLogThoroughInterval() {
        return flushCommitLogThoroughInterval;
    }

    /** True: the async flusher sleeps its whole interval; false: appends may wake it (default true). */
    public boolean flushCommitLogTimed() {
        return flushCommitLogTimed;
    }

    /** Period of the transient-store-pool commit service in ms (default 200). */
    public int commitIntervalCommitLog() {
        return commitIntervalCommitLog;
    }

    public int commitCommitLogLeastPages() {
        return commitCommitLogLeastPages;
    }

    public int commitCommitLogThoroughInterval() {
        return commitCommitLogThoroughInterval;
    }

    /** How long a SYNC_FLUSH put waits for force() before FLUSH_DISK_TIMEOUT, in ms (default 5000). */
    public long syncFlushTimeout() {
        return syncFlushTimeout;
    }

    /** Largest accepted message body in bytes (default 4 MiB). */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** Put lock held longer than this (ms) means "page cache busy" (default 1000). */
    public long osPageCacheBusyTimeOutMills() {
        return osPageCacheBusyTimeOutMills;
    }

    public boolean transientStorePoolEnable() {
        return transientStorePoolEnable;
    }

    public int transientStorePoolSize() {
        return transientStorePoolSize;
    }

    public boolean fastFailIfNoBufferInStorePool() {
        return fastFailIfNoBufferInStorePool;
    }

    /** Prewarm new CommitLog files (Basalt default true; RocketMQ's is false). */
    public boolean warmMapedFileEnable() {
        return warmMapedFileEnable;
    }

    public int flushLeastPagesWhenWarmMapedFile() {
        return flushLeastPagesWhenWarmMapedFile;
    }

    /** Wake the transient-store-pool commit service on every put (default true). */
    public boolean wakeCommitWhenPutMessage() {
        return wakeCommitWhenPutMessage;
    }

    public boolean checkCRCOnRecover() {
        return checkCRCOnRecover;
    }

    /**
     * End every appended record with RocketMQ's record CRC property (default false, as in RocketMQ):
     * it covers topic and properties too, which the body CRC does not, and recovery requires and
     * checks it from where the store began writing it.
     */
    public boolean enabledAppendPropCRC() {
        return enabledAppendPropCRC;
    }

    public int flushIntervalConsumeQueue() {
        return flushIntervalConsumeQueue;
    }

    public int flushConsumeQueueLeastPages() {
        return flushConsumeQueueLeastPages;
    }

    public int flushConsumeQueueThoroughInterval() {
        return flushConsumeQueueThoroughInterval;
    }

    /** Hours a CommitLog file is kept (default 72). */
    public int fileReservedTime() {
        return fileReservedTime;
    }

    /** Hours of the day (";"-separated, default "04") when expired files are deleted. */
    public String deleteWhen() {
        return deleteWhen;
    }

    /** Disk usage percentage above which files are deleted early, clamped to [10, 95] (default 75). */
    public int diskMaxUsedSpaceRatio() {
        return diskMaxUsedSpaceRatio;
    }

    public int cleanResourceInterval() {
        return cleanResourceInterval;
    }

    public int deleteCommitLogFilesInterval() {
        return deleteCommitLogFilesInterval;
    }

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

    /** Collects values, then {@link #build()} validates them all at once. Not thread-safe. */
    public static final class Builder {
        private String storePathRootDir = Paths.get(System.getProperty("user.home"), "store").toString();
        private String storePathCommitLog;
        private int mappedFileSizeCommitLog = 1024 * 1024 * 1024;
        private int mappedFileSizeConsumeQueue = 300_000 * 20;
        private FlushDiskType flushDiskType = FlushDiskType.ASYNC_FLUSH;
        private int flushIntervalCommitLog = 500;
        private int flushCommitLogLeastPages = 4;
        private int flushCommitLogThoroughInterval = 10_000;
        private boolean flushCommitLogTimed = true;
        private int commitIntervalCommitLog = 200;
        private int commitCommitLogLeastPages = 4;
        private int commitCommitLogThoroughInterval = 200;
        private long syncFlushTimeout = 5_000;
        private int maxMessageSize = 4 * 1024 * 1024;
        private long osPageCacheBusyTimeOutMills = 1_000;
        private boolean transientStorePoolEnable;
        private int transientStorePoolSize = 5;
        private boolean fastFailIfNoBufferInStorePool;
        private boolean warmMapedFileEnable = true;
        private int flushLeastPagesWhenWarmMapedFile = 4096;
        private boolean wakeCommitWhenPutMessage = true;
        private boolean checkCRCOnRecover = true;
        private boolean enabledAppendPropCRC;
        private int flushIntervalConsumeQueue = 1_000;
        private int flushConsumeQueueLeastPages = 2;
        private int flushConsumeQueueThoroughInterval = 60_000;
        private int fileReservedTime = 72;
        private String deleteWhen = "04";
        private int diskMaxUsedSpaceRatio = 75;
        private int cleanResourceInterval = 10_000;
        private int deleteCommitLogFilesInterval = 100;
        private int destroyMapedFileIntervalForcibly = 120_000;

        private Builder() {
        }

        /** Sets the root; the CommitLog directory follows it unless set explicitly. */
        public Builder storePathRootDir(String v) {
            this.storePathRootDir = v;
            return this;
        }

        public Builder storePathCommitLog(String v) {
            this.storePathCommitLog = v;
            return this;
        }

        public Builder mappedFileSizeCommitLog(int v) {
            this.mappedFileSizeCommitLog = v;
            return this;
        }

        public Builder mappedFileSizeConsumeQueue(int v) {
            this.mappedFileSizeConsumeQueue = v;
            return this;
        }

        public Builder flushDiskType(FlushDiskType v) {
            this.flushDiskType = v;
            return this;
        }

        public Builder flushIntervalCommitLog(int v) {
            this.flushIntervalCommitLog = v;
            return this;
        }

        public Builder flushCommitLogLeastPages(int v) {
            this.flushCommitLogLeastPages = v;
            return this;
        }

        public Builder flushCommitLogThoroughInterval(int v) {
            this.flushCommitLogThoroughInterval = v;
            return this;
        }

        public Builder flushCommitLogTimed(boolean v) {
            this.flushCommitLogTimed = v;
            return this;
        }

        public Builder commitIntervalCommitLog(int v) {
            this.commitIntervalCommitLog = v;
            return this;
        }

        public Builder commitCommitLogLeastPages(int v) {
            this.commitCommitLogLeastPages = v;
            return this;
        }

        public Builder commitCommitLogThoroughInterval(int v) {
            this.commitCommitLogThoroughInterval = v;
            return this;
        }

        public Builder syncFlushTimeout(long v) {
            this.syncFlushTimeout = v;
            return this;
        }

        public Builder maxMessageSize(int v) {
            this.maxMessageSize = v;
            return this;
        }

        public Builder osPageCacheBusyTimeOutMills(long v) {
            this.osPageCacheBusyTimeOutMills = v;
            return this;
        }

        public Builder transientStorePoolEnable(boolean v) {
            this.transientStorePoolEnable = v;
            return this;
        }

        public Builder transientStorePoolSize(int v) {
            this.transientStorePoolSize = v;
            return this;
        }

        public Builder fastFailIfNoBufferInStorePool(boolean v) {
            this.fastFailIfNoBufferInStorePool = v;
            return this;
        }

        public Builder warmMapedFileEnable(boolean v) {
            this.warmMapedFileEnable = v;
            return this;
        }

        public Builder flushLeastPagesWhenWarmMapedFile(int v) {
            this.flushLeastPagesWhenWarmMapedFile = v;
            return this;
        }

        public Builder wakeCommitWhenPutMessage(boolean v) {
            this.wakeCommitWhenPutMessage = v;
            return this;
        }

        public Builder checkCRCOnRecover(boolean v) {
            this.checkCRCOnRecover = v;
            return this;
        }

        public Builder enabledAppendPropCRC(boolean v) {
            this.enabledAppendPropCRC = v;
            return this;
        }

        public Builder flushIntervalConsumeQueue(int v) {
            this.flushIntervalConsumeQueue = v;
            return this;
        }

        public Builder flushConsumeQueueLeastPages(int v) {
            this.flushConsumeQueueLeastPages = v;
            return this;
        }

        public Builder flushConsumeQueueThoroughInterval(int v) {
            this.flushConsumeQueueThoroughInterval = v;
            return this;
        }

        public Builder fileReservedTime(int v) {
            this.fileReservedTime = v;
            return this;
        }

        public Builder deleteWhen(String v) {
            this.deleteWhen = v;
            return this;
        }

        public Builder diskMaxUsedSpaceRatio(int v) {
            this.diskMaxUsedSpaceRatio = v;
            return this;
        }

        public Builder cleanResourceInterval(int v) {
            this.cleanResourceInterval = v;
            return this;
        }

        public Builder deleteCommitLogFilesInterval(int v) {
            this.deleteCommitLogFilesInterval = v;
            return this;
        }

        public Builder destroyMapedFileIntervalForcibly(int v) {
            this.destroyMapedFileIntervalForcibly = v;
            return this;
        }

        /** Validates every value; throws {@link IllegalArgumentException} naming the key and value. */
        public StoreConfig build() {
            requireText("storePathRootDir", storePathRootDir);
            if (storePathCommitLog != null) {
                requireText("storePathCommitLog", storePathCommitLog);
            }
            atLeast("mappedFileSizeCommitLog", mappedFileSizeCommitLog, OS_PAGE_SIZE);
            atLeast("mappedFileSizeConsumeQueue", mappedFileSizeConsumeQueue, 20);
            if (mappedFileSizeConsumeQueue % 20 != 0) {
                throw bad("mappedFileSizeConsumeQueue", mappedFileSizeConsumeQueue, "a multiple of 20");
            }
            Objects.requireNonNull(flushDiskType, "flushDiskType");
            atLeast("flushIntervalCommitLog", flushIntervalCommitLog, 1);
            atLeast("flushCommitLogLeastPages", flushCommitLogLeastPages, 0);
            atLeast("flushCommitLogThoroughInterval", flushCommitLogThoroughInterval, 0);
            atLeast("commitIntervalCommitLog", commitIntervalCommitLog, 1);
            atLeast("commitCommitLogLeastPages", commitCommitLogLeastPages, 0);
            atLeast("commitCommitLogThoroughInterval", commitCommitLogThoroughInterval, 0);
            atLeast("syncFlushTimeout", syncFlushTimeout, 1);
            atLeast("maxMessageSize", maxMessageSize, 1);
            atLeast("osPageCacheBusyTimeOutMills", osPageCacheBusyTimeOutMills, 1);
            atLeast("transientStorePoolSize", transientStorePoolSize, 1);
            atLeast("flushLeastPagesWhenWarmMapedFile", flushLeastPagesWhenWarmMapedFile, 1);
            atLeast("flushIntervalConsumeQueue", flushIntervalConsumeQueue, 1);
            atLeast("flushConsumeQueueLeastPages", flushConsumeQueueLeastPages, 0);
            atLeast("flushConsumeQueueThoroughInterval", flushConsumeQueueThoroughInterval, 0);
            atLeast("fileReservedTime", fileReservedTime, 0);
            requireText("deleteWhen", deleteWhen);
            for (String hour : deleteWhen.split(";")) {
                int h;
                try {
                    h = Integer.parseInt(hour.trim());
                } catch (NumberFormatException e) {
                    throw bad("deleteWhen", deleteWhen, "hours 00-23 separated by ';'");
                }
                if (h < 0 || h > 23) {
                    throw bad("deleteWhen", deleteWhen, "hours 00-23 separated by ';'");
                }
            }
            if (diskMaxUsedSpaceRatio < 10 || diskMaxUsedSpaceRatio > 95) {
                throw bad("diskMaxUsedSpaceRatio", diskMaxUsedSpaceRatio, "a percentage in [10, 95]");
            }
            atLeast("cleanResourceInterval", cleanResourceInterval, 1);
            atLeast("deleteCommitLogFilesInterval", deleteCommitLogFilesInterval, 0);
            atLeast("destroyMapedFileIntervalForcibly", destroyMapedFileIntervalForcibly, 0);
            return new StoreConfig(this);
        }

        private static void requireText(String key, String value) {
            if (value == null || value.isBlank()) {
                throw bad(key, value, "a non-empty value");
            }
        }

        private static void atLeast(String key, long value, long min) {
            if (value < min) {
                throw bad(key, value, "a value >= " + min);
            }
        }
    }
}
