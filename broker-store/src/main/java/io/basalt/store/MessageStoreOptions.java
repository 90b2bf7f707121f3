package io.basalt.store;

import java.time.Clock;
import java.util.Locale;
import java.util.Properties;

import io.basalt.store.index.IndexService;
import io.basalt.store.retention.DiskUsageSource;
import io.basalt.store.retention.RetentionPolicy;

/**
 * What the MessageStore needs beyond {@link StoreConfig}: RocketMQ keys StoreConfig does not carry yet
 * (index sizes, read limits, disk thresholds) and the injectable time and disk-usage sources.
 *
 * <p>{@link #fromProperties} reads these keys of a {@code broker.conf} with RocketMQ's names and
 * defaults: {@code messageIndexEnable}, {@code maxHashSlotNum}, {@code maxIndexNum},
 * {@code maxTransferBytesOnMessageInMemory}, {@code maxTransferCountOnMessageInMemory},
 * {@code maxTransferBytesOnMessageInDisk}, {@code maxTransferCountOnMessageInDisk},
 * {@code accessMessageInMemoryMaxRatio}, {@code diskSpaceCleanForciblyRatio},
 * {@code diskSpaceWarningLevelRatio}, {@code cleanFileForciblyEnable}, {@code maxMsgsNumBatch}.
 *
 * @param messageIndexEnable          build the IndexFile (RocketMQ's messageIndexEnable, true)
 * @param maxHashSlotNum              5,000,000
 * @param maxIndexNum                 20,000,000
 * @param readLimits                  pull batch caps and the in-memory ratio
 * @param diskSpaceCleanForciblyRatio 85
 * @param diskSpaceWarningLevelRatio  90
 * @param cleanFileForciblyEnable     true
 * @param diskCheckIntervalMs         how often the disk watch samples usage (1000)
 * @param reputIdleWaitMs             the dispatcher's poll when not woken (1, as RocketMQ's reput loop)
 * @param maxMsgsNumBatch             most messages one queryMessage returns (64)
 * @param clock                       time for retention decisions and index file names
 * @param diskUsage                   usage source for the disk watch
 */
public record MessageStoreOptions(boolean messageIndexEnable, int maxHashSlotNum, int maxIndexNum,
                                  ReadLimits readLimits, int diskSpaceCleanForciblyRatio,
                                  int diskSpaceWarningLevelRatio, boolean cleanFileForciblyEnable,
                                  long diskCheckIntervalMs, long reputIdleWaitMs, int maxMsgsNumBatch, Clock clock,
                                  DiskUsageSource diskUsage) {

    public static MessageStoreOptions defaults() {
        return new MessageStoreOptions(true, IndexService.DEFAULT_HASH_SLOT_NUM, IndexService.DEFAULT_INDEX_NUM,
                ReadLimits.defaults(), 85, 90, true, 1000, 1, 64, Clock.systemDefaultZone(), DiskUsageSource.fileSystem());
    }

    /**
     * The defaults overridden by the keys above found in {@code props}; other keys are left to other
     * components. A known key with a bad value is refused with an IllegalArgumentException naming the
     * key and the value.
     */
    public static MessageStoreOptions fromProperties(Properties props) {
        MessageStoreOptions d = defaults();
        ReadLimits r = d.readLimits();
        return new MessageStoreOptions(
                bool(props, "messageIndexEnable", d.messageIndexEnable()),
                intIn(props, "maxHashSlotNum", d.maxHashSlotNum(), 1, Integer.MAX_VALUE),
                intIn(props, "maxIndexNum", d.maxIndexNum(), 2, Integer.MAX_VALUE),
                new ReadLimits(
                        intIn(props, "maxTransferBytesOnMessageInMemory", r.maxTransferBytesOnMessageInMemory(), 1, Integer.MAX_VALUE),
                        intIn(props, "maxTransferCountOnMessageInMemory", r.maxTransferCountOnMessageInMemory(), 1, Integer.MAX_VALUE),
                        intIn(props, "maxTransferBytesOnMessageInDisk", r.maxTransferBytesOnMessageInDisk(), 1, Integer.MAX_VALUE),
                        intIn(props, "maxTransferCountOnMessageInDisk", r.maxTransferCountOnMessageInDisk(), 1, Integer.MAX_VALUE),
                        intIn(props, "accessMessageInMemoryMaxRatio", r.accessMessageInMemoryMaxRatio(), 0, 100),
                        r.physicalMemoryBytes()),
                intIn(props, "diskSpaceCleanForciblyRatio", d.diskSpaceCleanForciblyRatio(), 0, 100),
                intIn(props, "diskSpaceWarningLevelRatio", d.diskSpaceWarningLevelRatio(), 0, 100),
                bool(props, "cleanFileForciblyEnable", d.cleanFileForciblyEnable()),
                d.diskCheckIntervalMs(), d.reputIdleWaitMs(),
                intIn(props, "maxMsgsNumBatch", d.maxMsgsNumBatch(), 1, Integer.MAX_VALUE),
                d.clock(), d.diskUsage());
    }

    private static int intIn(Properties props, String key, int dflt, int min, int max) {
        String v = props.getProperty(key);
        if (v == null) {
            return dflt;
        }
        int value;
        try {
            value = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid store config " + key + "=" + v + ": expected an int");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException("invalid store config " + key + "=" + v + ": expected a value in ["
                    + min + ", " + max + "]");
        }
        return value;
    }

    private static boolean bool(Properties props, String key, boolean dflt) {
        String v = props.getProperty(key);
        if (v == null) {
            return dflt;
        }
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new IllegalArgumentException("invalid store config " + key + "=" + v + ": expected true or false");
        }
        return t.equals("true");
    }

    public MessageStoreOptions withIndexSize(int hashSlots, int items) {
        return new MessageStoreOptions(messageIndexEnable, hashSlots, items, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, maxMsgsNumBatch, clock, diskUsage);
    }

    public MessageStoreOptions withClock(Clock c) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, maxMsgsNumBatch, c, diskUsage);
    }

    public MessageStoreOptions withDiskUsage(DiskUsageSource d) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, maxMsgsNumBatch, clock, d);
    }

    public MessageStoreOptions withReadLimits(ReadLimits r) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, r, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, maxMsgsNumBatch, clock, diskUsage);
    }

    RetentionPolicy retentionPolicy(StoreConfig config) {
        return new RetentionPolicy(config.fileReservedTime(), config.deleteWhen(), config.diskMaxUsedSpaceRatio(),
                diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio, cleanFileForciblyEnable);
    }
}
