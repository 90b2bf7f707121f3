package io.basalt.store;

import java.time.Clock;

import io.basalt.store.index.IndexService;
import io.basalt.store.retention.DiskUsageSource;
import io.basalt.store.retention.RetentionPolicy;

/**
 * What the MessageStore needs beyond {@link StoreConfig}: RocketMQ keys StoreConfig does not carry yet
 * (index sizes, read limits, disk thresholds) and the injectable time and disk-usage sources.
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
 * @param clock                       time for retention decisions and index file names
 * @param diskUsage                   usage source for the disk watch
 */
public record MessageStoreOptions(boolean messageIndexEnable, int maxHashSlotNum, int maxIndexNum,
                                  ReadLimits readLimits, int diskSpaceCleanForciblyRatio,
                                  int diskSpaceWarningLevelRatio, boolean cleanFileForciblyEnable,
                                  long diskCheckIntervalMs, long reputIdleWaitMs, Clock clock,
                                  DiskUsageSource diskUsage) {

    public static MessageStoreOptions defaults() {
        return new MessageStoreOptions(true, IndexService.DEFAULT_HASH_SLOT_NUM, IndexService.DEFAULT_INDEX_NUM,
                ReadLimits.defaults(), 85, 90, true, 1000, 1, Clock.systemDefaultZone(), DiskUsageSource.fileSystem());
    }

    public MessageStoreOptions withIndexSize(int hashSlots, int items) {
        return new MessageStoreOptions(messageIndexEnable, hashSlots, items, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, clock, diskUsage);
    }

    public MessageStoreOptions withClock(Clock c) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, c, diskUsage);
    }

    public MessageStoreOptions withDiskUsage(DiskUsageSource d) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, readLimits, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, clock, d);
    }

    public MessageStoreOptions withReadLimits(ReadLimits r) {
        return new MessageStoreOptions(messageIndexEnable, maxHashSlotNum, maxIndexNum, r, diskSpaceCleanForciblyRatio,
                diskSpaceWarningLevelRatio, cleanFileForciblyEnable, diskCheckIntervalMs, reputIdleWaitMs, clock, diskUsage);
    }

    RetentionPolicy retentionPolicy(StoreConfig config) {
        return new RetentionPolicy(config.fileReservedTime(), config.deleteWhen(), config.diskMaxUsedSpaceRatio(),
                diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio, cleanFileForciblyEnable);
    }
}
