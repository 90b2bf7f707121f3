package io.basalt.store;

import io.basalt.store.retention.DiskUsageSource;
import java.time.Clock;

/**
 * What the store reads from the machine rather than from {@code broker.conf}: the time (retention
 * decisions, index file names), how full the disk is (the disk watch) and how much physical memory
 * there is (whether a read is served from the page cache). {@link #system()} is the real machine;
 * tests pass a settable clock, a fake disk or a small memory. Immutable.
 *
 * @param clock               time for retention and index file names
 * @param diskUsage           used fraction of the partition holding a directory
 * @param physicalMemoryBytes the machine's memory, for {@code accessMessageInMemoryMaxRatio}
 */
public record StoreEnvironment(Clock clock, DiskUsageSource diskUsage, long physicalMemoryBytes) {

    public static StoreEnvironment system() {
        return new StoreEnvironment(Clock.systemDefaultZone(), DiskUsageSource.fileSystem(), ReadLimits.physicalMemory());
    }

    public StoreEnvironment withClock(Clock value) {
        return new StoreEnvironment(value, diskUsage, physicalMemoryBytes);
    }

    public StoreEnvironment withDiskUsage(DiskUsageSource value) {
        return new StoreEnvironment(clock, value, physicalMemoryBytes);
    }

    public StoreEnvironment withPhysicalMemoryBytes(long value) {
        return new StoreEnvironment(clock, diskUsage, value);
    }
}
