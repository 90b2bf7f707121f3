package io.basalt.ha;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ConfigReader;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.ConfigValues.Source;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replication settings one HA endpoint needs, built only from the resolved values of
 * {@link HAKeys} ({@link #from}), which declare each key's name, default and range once. Tests use
 * {@link #builder()}, which reads its settings through the same table. Durations are milliseconds,
 * sizes bytes. Immutable, thread-safe.
 */
public final class HAConfig {

    private final int haListenPort;
    private final long haMaxGapNotInSync;
    private final int haSendHeartbeatInterval;
    private final int haHousekeepingInterval;
    private final int haTransferBatchSize;
    private final long slaveTimeoutMs;
    private final long reconnectIntervalMs;
    private final boolean syncFromLastFile;
    private final boolean allAckInSyncStateSet;
    private final int inSyncReplicas;
    private final int minInSyncReplicas;
    private final long haMaxTimeSlaveNotCatchupMs;
    private final boolean asyncLearner;
    private final String haAuthSecret;
    private final boolean haTlsEnable;

    private HAConfig(ConfigValues values) {
        this.haListenPort = values.get(HAKeys.HA_LISTEN_PORT);
        this.haMaxGapNotInSync = values.get(HAKeys.HA_MAX_GAP_NOT_IN_SYNC);
        this.haSendHeartbeatInterval = values.get(HAKeys.HA_SEND_HEARTBEAT_INTERVAL);
        this.haHousekeepingInterval = values.get(HAKeys.HA_HOUSEKEEPING_INTERVAL);
        this.haTransferBatchSize = values.get(HAKeys.HA_TRANSFER_BATCH_SIZE);
        this.slaveTimeoutMs = values.get(HAKeys.SLAVE_TIMEOUT);
        this.reconnectIntervalMs = values.get(HAKeys.HA_RECONNECT_INTERVAL);
        this.syncFromLastFile = values.get(HAKeys.SYNC_FROM_LAST_FILE);
        this.allAckInSyncStateSet = values.get(HAKeys.ALL_ACK_IN_SYNC_STATE_SET);
        this.inSyncReplicas = values.get(HAKeys.IN_SYNC_REPLICAS);
        this.minInSyncReplicas = values.get(HAKeys.MIN_IN_SYNC_REPLICAS);
        this.haMaxTimeSlaveNotCatchupMs = values.get(HAKeys.HA_MAX_TIME_SLAVE_NOT_CATCHUP);
        this.asyncLearner = values.get(HAKeys.ASYNC_LEARNER);
        this.haAuthSecret = values.get(HAKeys.HA_AUTH_SECRET);
        this.haTlsEnable = values.get(HAKeys.HA_TLS_ENABLE);
        if (haHousekeepingInterval <= haSendHeartbeatInterval) {
            throw new IllegalArgumentException(housekeepingProblem(haHousekeepingInterval, haSendHeartbeatInterval));
        }
    }

    /**
     * Replication's configuration from resolved values of (at least) {@link HAKeys#TABLE}.
     *
     * @throws IllegalArgumentException if haHousekeepingInterval does not exceed haSendHeartbeatInterval
     */
    public static HAConfig from(ConfigValues values) {
        return new HAConfig(values);
    }

    /** Every key at its default but those the builder sets. */
    public static Builder builder() {
        return new Builder();
    }

    /** The rule across two keys, worded for {@code broker.conf}; the broker reports it before start-up. */
    public static String housekeepingProblem(int haHousekeepingInterval, int haSendHeartbeatInterval) {
        return "haHousekeepingInterval=" + haHousekeepingInterval + " must exceed haSendHeartbeatInterval="
            + haSendHeartbeatInterval + " (a connection is closed after that long without a heartbeat)";
    }

    /** Master: port slaves connect to (0 picks a free one). */
    public int haListenPort() {
        return haListenPort;
    }

    /** Bytes a slave may lag and still be in sync (SYNC_MASTER answers SLAVE_NOT_AVAILABLE at once beyond). */
    public long haMaxGapNotInSync() {
        return haMaxGapNotInSync;
    }

    /** Idle heartbeat (master) and offset report (slave) period, ms. */
    public int haSendHeartbeatInterval() {
        return haSendHeartbeatInterval;
    }

    /** A connection with no read for this long is closed, ms. */
    public int haHousekeepingInterval() {
        return haHousekeepingInterval;
    }

    /** Largest body of one data frame, bytes. */
    public int haTransferBatchSize() {
        return haTransferBatchSize;
    }

    /** SYNC_MASTER: longest a put waits for a slave before FLUSH_SLAVE_TIMEOUT, ms ({@code slaveTimeout}). */
    public long slaveTimeoutMs() {
        return slaveTimeoutMs;
    }

    /** Slave: pause between connection attempts, ms ({@code haReconnectInterval}). */
    public long reconnectIntervalMs() {
        return reconnectIntervalMs;
    }

    /** Slave: an empty slave starts at the start of the master's last file (true) or at its oldest offset. */
    public boolean syncFromLastFile() {
        return syncFromLastFile;
    }

    /** Controller mode: a put waits for every SyncStateSet member and dispatch stops at the confirmOffset. */
    public boolean allAckInSyncStateSet() {
        return allAckInSyncStateSet;
    }

    /** Controller mode without allAckInSyncStateSet: replicas (master included) a put waits for; 1 = none. */
    public int inSyncReplicas() {
        return inSyncReplicas;
    }

    /** Controller mode: the least SyncStateSet size at which puts are accepted. */
    public int minInSyncReplicas() {
        return minInSyncReplicas;
    }

    /** Controller mode: a slave not caught up for this long leaves the SyncStateSet, ms. */
    public long haMaxTimeSlaveNotCatchupMs() {
        return haMaxTimeSlaveNotCatchupMs;
    }

    /** Controller mode, slave: replicate without ever joining the SyncStateSet. */
    public boolean asyncLearner() {
        return asyncLearner;
    }

    /** Basalt: the secret the brokers of a group prove to each other on the HA port, if set. */
    public java.util.Optional<String> haAuthSecret() {
        return haAuthSecret.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(haAuthSecret);
    }

    /** Basalt: a slave's connection to its master's HA port speaks TLS. */
    public boolean haTlsEnable() {
        return haTlsEnable;
    }

    /** A builder holding this configuration's values, to derive a changed copy. */
    public Builder toBuilder() {
        return new Builder().haListenPort(haListenPort).haMaxGapNotInSync(haMaxGapNotInSync)
            .haSendHeartbeatInterval(haSendHeartbeatInterval).haHousekeepingInterval(haHousekeepingInterval)
            .haTransferBatchSize(haTransferBatchSize).slaveTimeoutMs(slaveTimeoutMs).reconnectIntervalMs(reconnectIntervalMs)
            .syncFromLastFile(syncFromLastFile).allAckInSyncStateSet(allAckInSyncStateSet).inSyncReplicas(inSyncReplicas)
            .minInSyncReplicas(minInSyncReplicas).haMaxTimeSlaveNotCatchupMs(haMaxTimeSlaveNotCatchupMs)
            .asyncLearner(asyncLearner).haAuthSecret(haAuthSecret).haTlsEnable(haTlsEnable);
    }

    @Override
    public String toString() {
        return "HAConfig{haListenPort=" + haListenPort + ", haMaxGapNotInSync=" + haMaxGapNotInSync
            + ", haSendHeartbeatInterval=" + haSendHeartbeatInterval + ", haHousekeepingInterval=" + haHousekeepingInterval
            + ", haTransferBatchSize=" + haTransferBatchSize + ", slaveTimeoutMs=" + slaveTimeoutMs
            + ", reconnectIntervalMs=" + reconnectIntervalMs + ", syncFromLastFile=" + syncFromLastFile
            + ", allAckInSyncStateSet=" + allAckInSyncStateSet + ", inSyncReplicas=" + inSyncReplicas
            + ", minInSyncReplicas=" + minInSyncReplicas + ", haMaxTimeSlaveNotCatchup=" + haMaxTimeSlaveNotCatchupMs
            + ", asyncLearner=" + asyncLearner + ", haAuthSecret=" + (haAuthSecret.isEmpty() ? "none" : "<hidden>") + ", haTlsEnable=" + haTlsEnable + '}';
    }

    /**
     * Collects settings as {@code broker.conf} text; {@link #build()} reads them through
     * {@link HAKeys#TABLE} and refuses what the file would refuse. Not thread-safe.
     */
    public static final class Builder {
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder() {
        }

        private Builder set(ConfigKey<?> key, Object value) {
            settings.put(key.name(), String.valueOf(value));
            return this;
        }

        public Builder haListenPort(int value) {
            return set(HAKeys.HA_LISTEN_PORT, value);
        }

        public Builder haMaxGapNotInSync(long value) {
            return set(HAKeys.HA_MAX_GAP_NOT_IN_SYNC, value);
        }

        public Builder haSendHeartbeatInterval(int value) {
            return set(HAKeys.HA_SEND_HEARTBEAT_INTERVAL, value);
        }

        public Builder haHousekeepingInterval(int value) {
            return set(HAKeys.HA_HOUSEKEEPING_INTERVAL, value);
        }

        public Builder haTransferBatchSize(int value) {
            return set(HAKeys.HA_TRANSFER_BATCH_SIZE, value);
        }

        public Builder slaveTimeoutMs(long value) {
            return set(HAKeys.SLAVE_TIMEOUT, value);
        }

        public Builder reconnectIntervalMs(long value) {
            return set(HAKeys.HA_RECONNECT_INTERVAL, value);
        }

        public Builder syncFromLastFile(boolean value) {
            return set(HAKeys.SYNC_FROM_LAST_FILE, value);
        }

        public Builder allAckInSyncStateSet(boolean value) {
            return set(HAKeys.ALL_ACK_IN_SYNC_STATE_SET, value);
        }

        public Builder inSyncReplicas(int value) {
            return set(HAKeys.IN_SYNC_REPLICAS, value);
        }

        public Builder minInSyncReplicas(int value) {
            return set(HAKeys.MIN_IN_SYNC_REPLICAS, value);
        }

        public Builder haMaxTimeSlaveNotCatchupMs(long value) {
            return set(HAKeys.HA_MAX_TIME_SLAVE_NOT_CATCHUP, value);
        }

        public Builder asyncLearner(boolean value) {
            return set(HAKeys.ASYNC_LEARNER, value);
        }

        public Builder haAuthSecret(String value) {
            return set(HAKeys.HA_AUTH_SECRET, value);
        }

        public Builder haTlsEnable(boolean value) {
            return set(HAKeys.HA_TLS_ENABLE, value);
        }

        /** @throws IllegalArgumentException naming every key with a bad value and what is allowed */
        public HAConfig build() {
            Map<String, Setting> chosen = new LinkedHashMap<>();
            settings.forEach((key, text) -> chosen.put(key, new Setting(key, text, Source.PROPERTIES, "HAConfig.builder")));
            ConfigReader reader = new ConfigReader(HAKeys.TABLE, ConfigEnvironment.system());
            ConfigValues.Builder values = reader.read(chosen);
            List<String> problems = reader.problems();
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("invalid HA config: " + String.join("; ", problems));
            }
            return new HAConfig(values.build());
        }
    }
}
