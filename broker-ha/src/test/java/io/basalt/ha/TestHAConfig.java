package io.basalt.ha;

/**
 * {@link HAConfig}s for tests. Starts from what replication tests want: a free port, the 256 MiB
 * in-sync gap, a 200 ms heartbeat, 3 s housekeeping and slave timeout, 32 KiB frames, 100 ms between
 * reconnects, and an empty slave starting at the master's oldest offset; tests change what they check.
 */
final class TestHAConfig {
    private TestHAConfig() {
    }

    static HAConfig.Builder builder() {
        return HAConfig.builder().haListenPort(0).haMaxGapNotInSync(256L * 1024 * 1024).haSendHeartbeatInterval(200)
            .haHousekeepingInterval(3000).haTransferBatchSize(32768).slaveTimeoutMs(3000).reconnectIntervalMs(100)
            .syncFromLastFile(false);
    }
}
