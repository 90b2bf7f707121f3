package io.basalt.ha;

/**
 * {@link HAConfig}s for tests, set by name instead of eight positional arguments. Starts from what
 * replication tests want: a free port, the 256 MiB in-sync gap, a 200 ms heartbeat, 3 s housekeeping
 * and slave timeout, 32 KiB frames, 100 ms between reconnects, and an empty slave starting at the
 * master's oldest offset.
 */
final class TestHAConfig {
    private int haListenPort;
    private long haMaxGapNotInSync = 256L * 1024 * 1024;
    private int haSendHeartbeatInterval = 200;
    private int haHousekeepingInterval = 3000;
    private int haTransferBatchSize = 32768;
    private long slaveTimeoutMs = 3000;
    private long reconnectIntervalMs = 100;
    private boolean slaveStartFromOldest = true;

    private TestHAConfig() {
    }

    static TestHAConfig builder() {
        return new TestHAConfig();
    }

    TestHAConfig haMaxGapNotInSync(long bytes) {
        this.haMaxGapNotInSync = bytes;
        return this;
    }

    TestHAConfig haSendHeartbeatInterval(int ms) {
        this.haSendHeartbeatInterval = ms;
        return this;
    }

    TestHAConfig haHousekeepingInterval(int ms) {
        this.haHousekeepingInterval = ms;
        return this;
    }

    TestHAConfig haTransferBatchSize(int bytes) {
        this.haTransferBatchSize = bytes;
        return this;
    }

    TestHAConfig slaveTimeoutMs(long ms) {
        this.slaveTimeoutMs = ms;
        return this;
    }

    TestHAConfig reconnectIntervalMs(long ms) {
        this.reconnectIntervalMs = ms;
        return this;
    }

    TestHAConfig slaveStartFromOldest(boolean fromOldest) {
        this.slaveStartFromOldest = fromOldest;
        return this;
    }

    HAConfig build() {
        return new HAConfig(haListenPort, haMaxGapNotInSync, haSendHeartbeatInterval, haHousekeepingInterval,
            haTransferBatchSize, slaveTimeoutMs, reconnectIntervalMs, slaveStartFromOldest);
    }
}
