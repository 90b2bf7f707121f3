package io.basalt.broker.config;

import java.util.Optional;

/**
 * Master/slave replication settings (RocketMQ's HA names from {@code MessageStoreConfig}).
 * Immutable; obtained from {@link BrokerConfiguration#ha()}. Durations are milliseconds.
 */
public final class HaSettings {

    private final ConfigValues values;

    HaSettings(ConfigValues values) {
        this.values = values;
    }

    /** Differs from the remoting port; 0 asks for a free one. */
    public int haListenPort() {
        return values.get(ConfigKeys.HA_LISTEN_PORT);
    }

    /** A slave's master (required for a slave); empty on a master. */
    public Optional<HostPort> haMasterAddress() {
        return values.get(ConfigKeys.HA_MASTER_ADDRESS);
    }

    /** Bytes. */
    public int haMaxGapNotInSync() {
        return values.get(ConfigKeys.HA_MAX_GAP_NOT_IN_SYNC);
    }

    public int haSendHeartbeatInterval() {
        return values.get(ConfigKeys.HA_SEND_HEARTBEAT_INTERVAL);
    }

    public int haHousekeepingInterval() {
        return values.get(ConfigKeys.HA_HOUSEKEEPING_INTERVAL);
    }

    /** Bytes. */
    public int haTransferBatchSize() {
        return values.get(ConfigKeys.HA_TRANSFER_BATCH_SIZE);
    }

    public int slaveTimeout() {
        return values.get(ConfigKeys.SLAVE_TIMEOUT);
    }
}
