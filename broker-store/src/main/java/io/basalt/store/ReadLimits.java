package io.basalt.store;

/**
 * How much one pull may return, and when data counts as "on disk" rather than in memory; RocketMQ's
 * keys and defaults. Not in {@code StoreConfig} yet, hence its own record.
 *
 * @param maxTransferBytesOnMessageInMemory  262144
 * @param maxTransferCountOnMessageInMemory  32
 * @param maxTransferBytesOnMessageInDisk    65536
 * @param maxTransferCountOnMessageInDisk    8
 * @param accessMessageInMemoryMaxRatio      40 (% of physical memory behind the log end still "in memory")
 * @param physicalMemoryBytes                the machine's memory
 */
public record ReadLimits(int maxTransferBytesOnMessageInMemory, int maxTransferCountOnMessageInMemory,
                         int maxTransferBytesOnMessageInDisk, int maxTransferCountOnMessageInDisk,
                         int accessMessageInMemoryMaxRatio, long physicalMemoryBytes) {

    /** RocketMQ's defaults, with this machine's physical memory. */
    public static ReadLimits defaults() {
        return new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 40, physicalMemory());
    }

    /** Log bytes behind the end that are expected to be in the page cache. */
    public long memoryBytes() {
        return (long) (physicalMemoryBytes * (accessMessageInMemoryMaxRatio / 100.0));
    }

    private static long physicalMemory() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getTotalMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }
}
