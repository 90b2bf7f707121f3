package io.basalt.store;

/**
 * How much one pull may return, and when data counts as "on disk" rather than in memory: the read
 * keys of {@link StoreConfig} with the machine's memory, as the reader uses them.
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

    /** The limits {@code config} sets, on a machine with {@code physicalMemoryBytes}. */
    public static ReadLimits of(StoreConfig config, long physicalMemoryBytes) {
        return new ReadLimits(config.maxTransferBytesOnMessageInMemory(), config.maxTransferCountOnMessageInMemory(),
            config.maxTransferBytesOnMessageInDisk(), config.maxTransferCountOnMessageInDisk(),
            config.accessMessageInMemoryMaxRatio(), physicalMemoryBytes);
    }

    /** Log bytes behind the end that are expected to be in the page cache. */
    public long memoryBytes() {
        return (long) (physicalMemoryBytes * (accessMessageInMemoryMaxRatio / 100.0));
    }

    /** This machine's physical memory, bytes (the JVM's maximum heap if the OS does not say). */
    static long physicalMemory() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getTotalMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }
}
