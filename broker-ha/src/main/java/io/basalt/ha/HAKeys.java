package io.basalt.ha;

import static io.basalt.common.config.ConfigKey.key;
import static io.basalt.common.config.ValueTypes.bool;
import static io.basalt.common.config.ValueTypes.integer;
import static io.basalt.common.config.ValueTypes.secret;

import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.KeyTable;
import java.util.List;

/**
 * Every {@code broker.conf} key replication reads, one line each: the single declaration of its
 * name, type, range, default and meaning; {@link HAConfig#from} reads them. Names and defaults are
 * RocketMQ 5.2.0's {@code MessageStoreConfig} unless the description says "Basalt". The broker
 * gives {@code haListenPort} its RocketMQ default, {@code listenPort + 1}, when it composes the tables.
 */
public final class HAKeys {

    public static final String SECTION = "ha";

    private static final int MAX_MS = 3_600_000;

    public static final ConfigKey<Integer> HA_LISTEN_PORT = key("haListenPort", SECTION, integer(0, 65535), "10912",
        "Port a master listens on for its slaves (0 picks a free port)");
    public static final ConfigKey<Integer> HA_MAX_GAP_NOT_IN_SYNC = key("haMaxGapNotInSync", SECTION,
        integer(1, Integer.MAX_VALUE), "268435456", "A slave further behind than this many bytes is not in sync");
    public static final ConfigKey<Integer> HA_SEND_HEARTBEAT_INTERVAL = key("haSendHeartbeatInterval", SECTION,
        integer(1, MAX_MS), "5000", "A slave reports its offset, and an idle master sends a heartbeat, at least this often, ms");
    public static final ConfigKey<Integer> HA_HOUSEKEEPING_INTERVAL = key("haHousekeepingInterval", SECTION,
        integer(1, MAX_MS), "20000", "A connection silent for this long is closed, ms (more than haSendHeartbeatInterval)");
    public static final ConfigKey<Integer> HA_TRANSFER_BATCH_SIZE = key("haTransferBatchSize", SECTION,
        integer(1, 64 * 1024 * 1024), "32768", "Most bytes a master sends a slave in one transfer");
    public static final ConfigKey<Integer> SLAVE_TIMEOUT = key("slaveTimeout", SECTION, integer(1, MAX_MS), "3000",
        "SYNC_MASTER: wait this long for a slave before answering FLUSH_SLAVE_TIMEOUT, ms");
    public static final ConfigKey<Integer> HA_RECONNECT_INTERVAL = key("haReconnectInterval", SECTION, integer(1, MAX_MS),
        "1000", "Basalt: a slave retries its master this often, ms (RocketMQ waits 5000; a failover wants it sooner)");
    public static final ConfigKey<Boolean> SYNC_FROM_LAST_FILE = key("syncFromLastFile", SECTION, bool(), "false",
        "An empty slave starts at the master's last CommitLog file (true) or at its oldest retained offset (false)");

    public static final ConfigKey<Boolean> ALL_ACK_IN_SYNC_STATE_SET = key("allAckInSyncStateSet", SECTION, bool(), "false",
        "Controller mode: a put waits for every SyncStateSet member, and consumers see only what all of them hold"
            + " (the confirmOffset); honoured only with enableControllerMode=true");
    public static final ConfigKey<Integer> IN_SYNC_REPLICAS = key("inSyncReplicas", SECTION, integer(1, 1024), "1",
        "Controller mode without allAckInSyncStateSet: replicas, the master included, that hold a put before it is"
            + " acknowledged; 1 (the default) waits for no slave at all; honoured only with enableControllerMode=true");
    public static final ConfigKey<Integer> MIN_IN_SYNC_REPLICAS = key("minInSyncReplicas", SECTION, integer(1, 1024), "1",
        "Controller mode: puts are refused (SYSTEM_ERROR 'in-sync replicas not enough') while the SyncStateSet has"
            + " fewer members; honoured only with enableControllerMode=true");
    public static final ConfigKey<Integer> HA_MAX_TIME_SLAVE_NOT_CATCHUP = key("haMaxTimeSlaveNotCatchup", SECTION,
        integer(1, MAX_MS), "15000", "Controller mode: a slave not caught up with the master for this long leaves"
            + " the SyncStateSet, ms");
    public static final ConfigKey<Boolean> ASYNC_LEARNER = key("asyncLearner", SECTION, bool(), "false",
        "Controller mode: this slave replicates but never joins the SyncStateSet (never elected, never waited for);"
            + " honoured only with enableControllerMode=true");

    public static final ConfigKey<String> HA_AUTH_SECRET = key("haAuthSecret", SECTION,
        secret("any text of 16 characters or more", raw -> {
            if (!raw.isEmpty() && raw.length() < 16) {
                throw new io.basalt.common.config.ValueType.InvalidValueException("has fewer than 16 characters");
            }
        }), "", "Basalt: a secret the brokers of a group share; when set, a master takes only slaves that prove they know"
            + " it (an HMAC exchange before the replication protocol), and a slave follows only a master that proves it"
            + " too. RocketMQ's HA protocols cannot prove it: a RocketMQ replica cannot follow or lead a broker that sets"
            + " it");

    public static final ConfigKey<Boolean> HA_TLS_ENABLE = key("haTlsEnable", SECTION, bool(), "false",
        "Basalt: a slave connects to its master's HA port with TLS (the broker's tls.client.* settings); a Basalt"
            + " master's HA port takes TLS whenever tls.server.mode is not disabled, told apart by the first byte as on"
            + " the remoting ports (RocketMQ's HA port has no TLS: a RocketMQ master cannot be followed with it)");

    /** Replication's keys, in documentation order. */
    public static final KeyTable TABLE = KeyTable.of(List.of(HA_LISTEN_PORT, HA_MAX_GAP_NOT_IN_SYNC,
        HA_SEND_HEARTBEAT_INTERVAL, HA_HOUSEKEEPING_INTERVAL, HA_TRANSFER_BATCH_SIZE, SLAVE_TIMEOUT, HA_RECONNECT_INTERVAL,
        SYNC_FROM_LAST_FILE, ALL_ACK_IN_SYNC_STATE_SET, IN_SYNC_REPLICAS, MIN_IN_SYNC_REPLICAS,
        HA_MAX_TIME_SLAVE_NOT_CATCHUP, ASYNC_LEARNER, HA_AUTH_SECRET, HA_TLS_ENABLE));

    /**
     * The keys whose non-default value RocketMQ honours only in controller mode: a classic-mode broker
     * refuses to start with one set ({@link #controllerOnlyProblem}).
     */
    public static final List<ConfigKey<?>> CONTROLLER_MODE_ONLY = List.of(ALL_ACK_IN_SYNC_STATE_SET, IN_SYNC_REPLICAS,
        MIN_IN_SYNC_REPLICAS, ASYNC_LEARNER);

    /** The start-up refusal of a controller-mode key set without enableControllerMode=true. */
    public static String controllerOnlyProblem(ConfigKey<?> key, Object value) {
        return key.name() + "=" + value + " is honoured only with enableControllerMode=true (RocketMQ's AutoSwitch"
            + " replication); a classic master/slave pair waits for its slave with brokerRole=SYNC_MASTER. Remove the"
            + " setting or enable controller mode";
    }

    private HAKeys() {
    }
}
