package io.basalt.ha;

/**
 * The replication settings one HA endpoint needs (RocketMQ's names from {@code MessageStoreConfig}),
 * validated once. Durations are milliseconds, sizes bytes.
 *
 * @param haListenPort             master: port slaves connect to (0 picks a free one)
 * @param haMaxGapNotInSync        a slave further behind than this is not in sync (SYNC_MASTER answers
 *                                 SLAVE_NOT_AVAILABLE at once instead of waiting for it)
 * @param haSendHeartbeatInterval  idle heartbeat (master) and offset report (slave) period
 * @param haHousekeepingInterval   a connection with no read for this long is closed
 * @param haTransferBatchSize      largest body of one data frame
 * @param slaveTimeoutMs           SYNC_MASTER: longest a put waits for a slave before FLUSH_SLAVE_TIMEOUT
 * @param reconnectIntervalMs      slave: pause between connection attempts
 * @param slaveStartFromOldest     slave: an empty slave starts at the master's oldest retained offset
 *                                 (true) or at the start of the master's last file (RocketMQ's choice)
 */
public record HAConfig(int haListenPort, long haMaxGapNotInSync, int haSendHeartbeatInterval,
                       int haHousekeepingInterval, int haTransferBatchSize, long slaveTimeoutMs,
                       long reconnectIntervalMs, boolean slaveStartFromOldest) {

    public HAConfig {
        positive("haMaxGapNotInSync", haMaxGapNotInSync);
        positive("haSendHeartbeatInterval", haSendHeartbeatInterval);
        positive("haHousekeepingInterval", haHousekeepingInterval);
        positive("haTransferBatchSize", haTransferBatchSize);
        positive("slaveTimeout", slaveTimeoutMs);
        positive("reconnectIntervalMs", reconnectIntervalMs);
        if (haListenPort < 0 || haListenPort > 65535) {
            throw new IllegalArgumentException("haListenPort must be in [0, 65535], was " + haListenPort);
        }
        if (haHousekeepingInterval <= haSendHeartbeatInterval) {
            throw new IllegalArgumentException("haHousekeepingInterval (" + haHousekeepingInterval
                + ") must exceed haSendHeartbeatInterval (" + haSendHeartbeatInterval + ")");
        }
    }

    /** RocketMQ's defaults (port 10912, 256 MiB gap, 5 s heartbeat, 20 s housekeeping, 32 KiB, 3 s). */
    public static HAConfig defaults() {
        return new HAConfig(10912, 256L * 1024 * 1024, 5000, 20000, 32768, 3000, 1000, true);
    }

    public HAConfig withListenPort(int port) {
        return new HAConfig(port, haMaxGapNotInSync, haSendHeartbeatInterval, haHousekeepingInterval,
            haTransferBatchSize, slaveTimeoutMs, reconnectIntervalMs, slaveStartFromOldest);
    }

    private static void positive(String key, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(key + " must be positive, was " + value);
        }
    }
}
