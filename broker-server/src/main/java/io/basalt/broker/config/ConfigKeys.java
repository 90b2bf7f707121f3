package io.basalt.broker.config;

import io.basalt.broker.assignment.MessageRequestMode;
import io.basalt.ha.BrokerRole;

import static io.basalt.broker.config.BrokerValueTypes.hostPortList;
import static io.basalt.broker.config.BrokerValueTypes.optionalHostPort;
import static io.basalt.broker.config.BrokerValueTypes.topicName;
import static io.basalt.common.config.ConfigKey.computed;
import static io.basalt.common.config.ConfigKey.key;
import static io.basalt.common.config.ValueTypes.bool;
import static io.basalt.common.config.ValueTypes.integer;
import static io.basalt.common.config.ValueTypes.longInteger;
import static io.basalt.common.config.ValueTypes.oneOf;
import static io.basalt.common.config.ValueTypes.path;
import static io.basalt.common.config.ValueTypes.token;

import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.KeyTable;
import io.basalt.ha.HAKeys;
import io.basalt.store.StoreKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The keys the broker itself reads (identity, network, topics, thread pools, periodic work, the
 * files beside the store, and which master a slave follows), one line each, and {@link #TABLE}: the
 * whole {@code broker.conf}, composed of these, the store's ({@link StoreKeys}) and replication's
 * ({@link HAKeys}). Names and defaults are RocketMQ 5.2.0's unless the description says "Basalt".
 * Ranges are Basalt's: RocketMQ accepts any number and sometimes clamps it silently; Basalt says
 * what is wrong instead.
 */
final class ConfigKeys {

    static final String SECTION = "broker";

    private static final int MAX_MS = 3_600_000;
    private static final int MAX = Integer.MAX_VALUE;

    // Identity and network
    static final ConfigKey<String> BROKER_CLUSTER_NAME = key("brokerClusterName", SECTION, token("a name without spaces"), "DefaultCluster",
        "Cluster the broker belongs to");
    static final ConfigKey<String> BROKER_NAME = computed("brokerName", SECTION, token("a name without spaces"), "the host name",
        r -> r.environment().hostName().get(), "Broker group name; a master and its slaves share it");
    static final ConfigKey<Long> BROKER_ID = key("brokerId", SECTION, longInteger(-1, Long.MAX_VALUE), "0",
        "0 is the master; a slave has a positive id");
    static final ConfigKey<BrokerRole> BROKER_ROLE = key("brokerRole", SECTION, oneOf(BrokerRole.class), "ASYNC_MASTER",
        "ASYNC_MASTER, SYNC_MASTER (a send is acknowledged once a slave has it) or SLAVE");
    /** RocketMQ's default listenPort 10911 minus its proxy's default gRPC port 8081. */
    private static final int GRPC_PORT_BELOW_LISTEN_PORT = 10911 - 8081;
    static final ConfigKey<Integer> LISTEN_PORT = key("listenPort", SECTION, integer(0, 65535), "10911",
        "Remoting port that clients and tools connect to (0 picks a free port); the same requests are also served on"
            + " listenPort - 2, RocketMQ's fast (VIP) port, which slaves ask for the topic table");
    static final ConfigKey<Integer> GRPC_SERVER_PORT = computed("grpcServerPort", SECTION, integer(-1, 65535),
        "listenPort - 2830: 8081 with the default listenPort (0 if listenPort is 0; 8081 if listenPort is 2830 or less)",
        r -> {
            // Derived like haListenPort, so brokers of one host that differ in listenPort (a master and its slave,
            // two masters), as RocketMQ configurations have them, also differ in their gRPC port.
            int listenPort = r.get(LISTEN_PORT);
            return listenPort == 0 ? "0" : String.valueOf(listenPort > GRPC_PORT_BELOW_LISTEN_PORT
                ? listenPort - GRPC_PORT_BELOW_LISTEN_PORT : 8081);
        },
        "Port of the gRPC endpoint of the RocketMQ 5.x SDKs (RocketMQ's proxy key; Basalt serves it from the broker),"
            + " TLS and plaintext on the same port; 0 picks a free port, -1 turns the endpoint off. Each broker of a"
            + " host needs its own");
    static final ConfigKey<Optional<HostPort>> GRPC_ADVERTISED_ADDRESS = key("grpcAdvertisedAddress", SECTION,
        optionalHostPort(), "",
        "Basalt: host:port this broker gives gRPC clients in routes (behind NAT or a port mapping); by default"
            + " brokerIP1 and the port the gRPC endpoint listens on");
    static final ConfigKey<Long> DEFAULT_INVISIBLE_TIME_MILLS = key("defaultInvisibleTimeMills", SECTION,
        longInteger(1000, 12 * 3_600_000L), "60000",
        "Invisible time of a message a gRPC push consumer receives with auto-renew, ms (RocketMQ's proxy key); the"
            + " broker renews it while the consumer still holds the message");
    static final ConfigKey<String> BIND_ADDRESS = key("bindAddress", SECTION, token("an address without spaces"), "0.0.0.0",
        "Local address the remoting and HA ports listen on");
    static final ConfigKey<String> BROKER_IP1 = computed("brokerIP1", SECTION, token("an address without spaces"), "an address of this host",
        r -> r.environment().localAddress().get(), "Address the broker advertises to clients and name servers");
    static final ConfigKey<String> BROKER_IP2 = computed("brokerIP2", SECTION, token("an address without spaces"), "brokerIP1",
        r -> r.get(BROKER_IP1), "Address a master advertises for replication: it registers brokerIP2:haListenPort as"
            + " its haServerAddr, which slaves without haMasterAddress connect to");
    static final ConfigKey<List<HostPort>> NAMESRV_ADDR = computed("namesrvAddr", SECTION, hostPortList(),
        "$NAMESRV_ADDR, else none",
        r -> r.environment().variable("rocketmq.namesrv.addr").or(() -> r.environment().variable("NAMESRV_ADDR")).orElse(""),
        "Name servers to register with, host:port separated by ';'; none: the broker answers route queries itself");

    static final ConfigKey<Integer> BROKER_PERMISSION = key("brokerPermission", SECTION, integer(0, 7), "6",
        "What the broker allows, bits READ 4, WRITE 2 (INHERIT 1): without WRITE the NameServers' routes show every topic"
            + " read-only (producers send elsewhere) and the broker refuses sends to order topics and send-backs; without"
            + " READ it refuses pulls. Changes live (updateBrokerConfig): the broker re-registers at once");

    // Topics
    static final ConfigKey<Boolean> AUTO_CREATE_TOPIC_ENABLE = key("autoCreateTopicEnable", SECTION, bool(), "true",
        "Create a topic on its first send");
    static final ConfigKey<Integer> AUTO_CREATE_TOPIC_PER_CLIENT_PER_SECOND = key("autoCreateTopicPerClientPerSecond",
        SECTION, integer(0, 1_000_000), "100",
        "Basalt: topics one client host may auto-create by sending, per second (a burst of as many passes at once);"
            + " beyond it the send gets TOPIC_NOT_EXIST with a remark naming this key. 0: no limit");
    static final ConfigKey<Integer> DEFAULT_TOPIC_QUEUE_NUMS = key("defaultTopicQueueNums", SECTION, integer(1, 1024), "8",
        "Queues of an auto-created topic");
    static final ConfigKey<Boolean> CLUSTER_TOPIC_ENABLE = key("clusterTopicEnable", SECTION, bool(), "true",
        "The topic named after brokerClusterName (created at start, 16 queues) is readable and writable; false: it"
            + " only routes (perm 1), which is all the admin API needs to create a topic on every master of the cluster");
    static final ConfigKey<Boolean> BROKER_TOPIC_ENABLE = key("brokerTopicEnable", SECTION, bool(), "true",
        "The topic named after brokerName (created at start, 1 queue) is readable and writable; false: it only"
            + " routes (perm 1)");
    static final ConfigKey<Boolean> TRACE_TOPIC_ENABLE = key("traceTopicEnable", SECTION, bool(), "false",
        "Create the message trace topic msgTraceTopicName at start (1 queue), where clients with message tracing"
            + " send their traces");
    static final ConfigKey<String> MSG_TRACE_TOPIC_NAME = key("msgTraceTopicName", SECTION, topicName(),
        "RMQ_SYS_TRACE_TOPIC", "The trace topic that traceTopicEnable creates");

    // Consumer groups
    static final ConfigKey<Boolean> AUTO_CREATE_SUBSCRIPTION_GROUP = key("autoCreateSubscriptionGroup", SECTION, bool(), "true",
        "Record a consumer group in config/subscriptionGroup.json on its first heartbeat or pull");
    static final ConfigKey<Boolean> ENABLE_PROPERTY_FILTER = key("enablePropertyFilter", SECTION, bool(), "false",
        "Serve SQL92 subscriptions (MessageSelector.bySql), filtered on the broker by message properties; when false "
            + "a consumer with one is refused at start (SYSTEM_ERROR)");

    // Request-reply
    static final ConfigKey<Boolean> STORE_REPLY_MESSAGE_ENABLE = key("storeReplyMessageEnable", SECTION, bool(), "true",
        "Also store each reply in its reply topic (DefaultCluster_REPLY_TOPIC in the default cluster); it is pushed to its requester either way");

    // Request thread pools
    static final ConfigKey<Integer> SEND_MESSAGE_THREAD_POOL_NUMS = computed("sendMessageThreadPoolNums", SECTION, integer(1, 256),
        "min(processors, 4)", r -> String.valueOf(Math.min(r.environment().processors(), 4)), "Threads that handle sends");
    static final ConfigKey<Integer> PULL_MESSAGE_THREAD_POOL_NUMS = computed("pullMessageThreadPoolNums", SECTION, integer(1, 1024),
        "16 + 2 * processors", r -> String.valueOf(16 + 2 * r.environment().processors()), "Threads that handle pulls");
    static final ConfigKey<Integer> SEND_THREAD_POOL_QUEUE_CAPACITY = key("sendThreadPoolQueueCapacity", SECTION, integer(1, MAX), "10000",
        "Send requests that may wait for a send thread");
    static final ConfigKey<Integer> PULL_THREAD_POOL_QUEUE_CAPACITY = key("pullThreadPoolQueueCapacity", SECTION, integer(1, MAX), "100000",
        "Pull requests that may wait for a pull thread");
    // Remoting memory bounds
    static final ConfigKey<Integer> WRITE_BUFFER_LOW_WATER_MARK = key("writeBufferLowWaterMark", SECTION, integer(0, MAX),
        "0", "Pending response bytes below which a connection paused by writeBufferHighWaterMark is read again;"
            + " 0 (with writeBufferHighWaterMark 0): Netty's 32768");
    static final ConfigKey<Integer> WRITE_BUFFER_HIGH_WATER_MARK = key("writeBufferHighWaterMark", SECTION, integer(0, MAX),
        "0", "Pending response bytes above which the broker stops reading requests from that connection (a client that"
            + " does not read its responses); 0 (with writeBufferLowWaterMark 0): Netty's 65536");
    static final ConfigKey<Long> REMOTING_UNWRITABLE_CLOSE_MILLIS = key("remotingUnwritableCloseMillis", SECTION,
        longInteger(0, MAX_MS), "30000", "Basalt: a connection whose responses stay above writeBufferHighWaterMark this long is"
            + " closed, ms; 0 never closes it");
    static final ConfigKey<Long> REMOTING_PARTIAL_FRAME_BUDGET_BYTES = key("remotingPartialFrameBudgetBytes", SECTION,
        longInteger(16L * 1024 * 1024, Long.MAX_VALUE), "134217728", "Basalt: bytes of unfinished request frames all"
            + " connections together may hold; a connection whose frame would pass it is closed");
    static final ConfigKey<Long> REMOTING_FRAME_COMPLETE_TIMEOUT_MILLIS = key("remotingFrameCompleteTimeoutMillis", SECTION,
        longInteger(0, MAX_MS), "15000", "Basalt: a request frame begun must be complete within this time, else its sender (a"
            + " stalled or trickling client) is closed, ms; 0 no limit");
    static final ConfigKey<Long> WAIT_TIME_MILLS_IN_SEND_QUEUE = key("waitTimeMillsInSendQueue", SECTION, longInteger(1, MAX_MS), "200",
        "A send that waited longer than this in the queue is answered SYSTEM_BUSY, ms");
    static final ConfigKey<Long> WAIT_TIME_MILLS_IN_PULL_QUEUE = key("waitTimeMillsInPullQueue", SECTION, longInteger(1, MAX_MS), "5000",
        "A pull that waited longer than this in the queue is answered SYSTEM_BUSY, ms");

    // Periodic broker work
    static final ConfigKey<Integer> FLUSH_CONSUMER_OFFSET_INTERVAL = key("flushConsumerOffsetInterval", SECTION, integer(100, MAX_MS), "5000",
        "Period of persisting consumer offsets to config/consumerOffset.json, ms");
    static final ConfigKey<Integer> REGISTER_NAME_SERVER_PERIOD = key("registerNameServerPeriod", SECTION, integer(10_000, 60_000), "30000",
        "Period of registering with the name servers, ms");
    static final ConfigKey<Integer> METRICS_PORT = key("metricsPort", SECTION, integer(0, 65535), "5557",
        "Basalt: port of the Prometheus /metrics endpoint and the status page at / (0 disables them)");
    static final ConfigKey<String> METRICS_LABEL = key("metricsLabel", SECTION, MetricsLabels.TYPE, "",
        "Extra labels k1:v1,k2:v2 on every rocketmq_* metric (RocketMQ's metricsLabel)");

    // Delay levels (messageDelayLevel itself is a store key)
    static final ConfigKey<Integer> FLUSH_DELAY_OFFSET_INTERVAL = key("flushDelayOffsetInterval", SECTION,
        integer(100, MAX_MS), "10000", "Period of rewriting config/delayOffset.json, ms; Basalt also writes a changed"
            + " delivery offset within 100 ms, so a crash re-delivers only what was delivered in those 100 ms and what was in flight");
    static final ConfigKey<Integer> DELAY_OFFSET_UPDATE_VERSION_STEP = key("delayOffsetUpdateVersionStep", SECTION,
        integer(1, MAX), "200", "Delivery offset updates per step of delayOffset.json's dataVersion");
    static final ConfigKey<Integer> SCHEDULE_ASYNC_DELIVER_MAX_PENDING_LIMIT = key("scheduleAsyncDeliverMaxPendingLimit",
        SECTION, integer(1, 1_000_000), "2000", "Due delay-level messages being put back into their topics at once, per"
            + " level (Basalt always delivers pipelined; RocketMQ only with enableScheduleAsyncDeliver)");

    // Transactions (RocketMQ's BrokerConfig names and defaults)
    static final ConfigKey<Boolean> REJECT_TRANSACTION_MESSAGE = key("rejectTransactionMessage", SECTION, bool(), "false",
        "Refuse transactional half messages (NO_PERMISSION)");
    static final ConfigKey<Long> TRANSACTION_TIME_OUT = key("transactionTimeOut", SECTION, longInteger(0, MAX_MS), "6000",
        "Age of a half message before its first back-check, ms; also the floor of CHECK_IMMUNITY_TIME_IN_SECONDS");
    static final ConfigKey<Long> TRANSACTION_CHECK_INTERVAL = key("transactionCheckInterval", SECTION,
        longInteger(100, MAX_MS), "30000", "Period of the back-check scan of undecided half messages, ms");
    static final ConfigKey<Integer> TRANSACTION_CHECK_MAX = key("transactionCheckMax", SECTION, integer(1, 10_000), "15",
        "Back-checks of one half message before it is given up into TRANS_CHECK_MAX_TIME_TOPIC");
    static final ConfigKey<Integer> TRANSACTION_OP_MSG_MAX_SIZE = key("transactionOpMsgMaxSize", SECTION,
        integer(16, 1 << 20), "4096", "Target body size of one op (done) marker in RMQ_SYS_TRANS_OP_HALF_TOPIC, characters");
    static final ConfigKey<Integer> TRANSACTION_OP_BATCH_INTERVAL = key("transactionOpBatchInterval", SECTION,
        integer(1, MAX_MS), "3000", "Longest an op (done) marker waits to be written with others, ms");
    static final ConfigKey<Long> TRANSACTION_METRIC_FLUSH_INTERVAL = key("transactionMetricFlushInterval", SECTION,
        longInteger(100, MAX_MS), "3000", "Period of writing config/transactionMetrics (half messages pending per topic), ms");
    static final ConfigKey<Integer> END_TRANSACTION_THREAD_POOL_NUMS = computed("endTransactionThreadPoolNums", SECTION,
        integer(1, 1024), "max(8 + 2 * processors, 4 * sendMessageThreadPoolNums)",
        r -> String.valueOf(Math.max(8 + 2 * r.environment().processors(), 4 * r.get(SEND_MESSAGE_THREAD_POOL_NUMS))),
        "Threads that handle END_TRANSACTION");
    static final ConfigKey<Integer> END_TRANSACTION_POOL_QUEUE_CAPACITY = key("endTransactionPoolQueueCapacity", SECTION,
        integer(1, MAX), "100000", "END_TRANSACTION requests that may wait for a thread");
    static final ConfigKey<Long> WAIT_TIME_MILLS_IN_TRANSACTION_QUEUE = key("waitTimeMillsInTransactionQueue", SECTION,
        longInteger(1, MAX_MS), "3000", "An END_TRANSACTION that waited longer than this in the queue is answered SYSTEM_BUSY, ms");

    // Files beside the store
    static final ConfigKey<Path> LOGS_DIR = computed("logsDir", SECTION, path(), "logs/ beside storePathRootDir",
        r -> r.get(StoreKeys.STORE_PATH_ROOT_DIR).resolveSibling("logs").toString(),
        "Basalt: directory of broker.log, store.log, remoting.log and stats.log");
    static final ConfigKey<Path> PID_FILE = computed("pidFile", SECTION, path(), "<storePathRootDir>/broker.pid",
        r -> r.get(StoreKeys.STORE_PATH_ROOT_DIR).resolve("broker.pid").toString(),
        "Basalt: file holding the process id of a running broker; stop reads it");
    static final ConfigKey<Path> STORE_PATH_EPOCH_FILE = computed("storePathEpochFile", SECTION, path(),
        "<storePathRootDir>/epochFileCheckpoint", r -> r.get(StoreKeys.STORE_PATH_ROOT_DIR).resolve("epochFileCheckpoint")
            .toString(), "Replication's epoch list (RocketMQ's text checkpoint: count, CRC32, <epoch>-<startOffset> lines),"
            + " with its previous version in <file>.bak");

    // Replication wiring
    static final ConfigKey<Optional<HostPort>> HA_MASTER_ADDRESS = key("haMasterAddress", SECTION, optionalHostPort(), "",
        "A slave's master, host:haListenPort; without it a slave replicates from the HA address the NameServers"
            + " return to its registration (haServerAddr), once its master registered");
    static final ConfigKey<Boolean> SLAVE_READ_ENABLE = key("slaveReadEnable", SECTION, bool(), "false",
        "Consumers may read from slaves: a master points a read far behind the log end to the group's"
            + " whichBrokerWhenConsumeSlowly slave, and a slave serves pulls (without it a slave answers SYSTEM_BUSY)");
    // Controller mode (RocketMQ's BrokerConfig names and defaults)
    static final ConfigKey<Boolean> ENABLE_CONTROLLER_MODE = key("enableControllerMode", SECTION, bool(),
        "false", "The RocketMQ Controller elects this broker set's master and assigns broker ids; brokerRole and brokerId"
            + " are then not the identity (RocketMQ's samples say brokerId=-1, brokerRole=SLAVE): a master serves as SYNC_MASTER"
            + " with brokerId 0, a slave with its controller id."
            + " The broker accepts no writes and does not register with the NameServers until the controller gave it a role");
    static final ConfigKey<List<HostPort>> CONTROLLER_ADDR = key("controllerAddr", SECTION, hostPortList(), "",
        "Every Controller node, host:port separated by ';' (the Controller's DLedger peer or JRaft RPC port); required in"
            + " controller mode");
    static final ConfigKey<Integer> SYNC_BROKER_METADATA_PERIOD = key("syncBrokerMetadataPeriod", SECTION,
        integer(10, MAX_MS), "5000", "Period of asking the controller for the broker set's master (GET_REPLICA_INFO), ms");
    static final ConfigKey<Integer> CHECK_SYNC_STATE_SET_PERIOD = key("checkSyncStateSetPeriod", SECTION,
        integer(10, MAX_MS), "5000", "A master checks its SyncStateSet (and asks the controller to alter it) this often"
            + " and whenever a slave connects or disconnects, ms");
    static final ConfigKey<Integer> SYNC_CONTROLLER_METADATA_PERIOD = key("syncControllerMetadataPeriod",
        SECTION, integer(10, MAX_MS), "10000", "Period of looking up the controller's leader, ms");
    static final ConfigKey<Long> CONTROLLER_HEART_BEAT_TIMEOUT_MILLS = key("controllerHeartBeatTimeoutMills",
        SECTION, longInteger(10, MAX_MS), "10000", "The controller counts this broker alive for this long after"
            + " a heartbeat, ms; a master that reached no controller for this long stops accepting writes (Basalt) until"
            + " the controller confirms it is still master");
    static final ConfigKey<Long> BROKER_HEARTBEAT_INTERVAL = key("brokerHeartbeatInterval", SECTION,
        longInteger(10, MAX_MS), "1000", "Period of the heartbeat to every controller node, ms");
    static final ConfigKey<Long> SEND_HEARTBEAT_TIMEOUT_MILLIS = key("sendHeartbeatTimeoutMillis", SECTION,
        longInteger(10, MAX_MS), "1000", "Longest the sending of one heartbeat may take, ms");
    static final ConfigKey<Integer> BROKER_ELECTION_PRIORITY = key("brokerElectionPriority", SECTION,
        integer(Integer.MIN_VALUE, MAX), String.valueOf(MAX), "Among replicas with the same epoch and CommitLog end the"
            + " controller elects the one with the lowest value");
    static final ConfigKey<Path> STORE_PATH_BROKER_IDENTITY = computed("storePathBrokerIdentity", SECTION,
        path(), "<storePathRootDir>/brokerIdentity", r -> r.get(StoreKeys.STORE_PATH_ROOT_DIR).resolve("brokerIdentity")
            .toString(), "File holding the broker id the controller assigned (cluster#brokerName#id; a temporary file"
            + " beside it ends in -temp)");

    static final ConfigKey<Boolean> USE_SERVER_SIDE_RESET_OFFSET = key("useServerSideResetOffset", SECTION, bool(), "true",
        "How INVOKE_BROKER_TO_RESET_OFFSET (mqadmin resetOffsetByTime) resets a group: true, the broker records the"
            + " target, overwrites the committed offset and moves the consumer on its next pull of each queue (consumers"
            + " need not be online; pending resets survive a restart, in config/consumerOffsetReset.json); false, RocketMQ's"
            + " older path: the broker sends the new offsets to the group's online push consumers"
            + " (RESET_CONSUMER_CLIENT_OFFSET) and refuses the reset with CONSUMER_NOT_ONLINE when none is online");
    static final ConfigKey<MessageRequestMode> DEFAULT_MESSAGE_REQUEST_MODE = key("defaultMessageRequestMode", SECTION,
        oneOf(MessageRequestMode.class), "PULL", "The request mode QUERY_ASSIGNMENT (push consumers with"
            + " clientRebalance=false) gives a topic and group without one set by mqadmin setConsumeMode: PULL or POP"
            + " (retry topics are always PULL)");
    static final ConfigKey<Integer> DEFAULT_POP_SHARE_QUEUE_NUM = key("defaultPopShareQueueNum", SECTION,
        integer(-1, MAX), "-1", "With defaultMessageRequestMode=POP: how many following clients' queues a client also"
            + " pops; -1 or 0, every client pops every queue");
    static final ConfigKey<Integer> REVIVE_QUEUE_NUM = key("reviveQueueNum", SECTION, integer(1, 998), "8",
        "POP: queues of the revive topic rmq_sys_REVIVE_LOG_<brokerClusterName> (created at start) and threads that"
            + " re-deliver un-acked messages; lowering it later strands the checkpoints of the removed queues");
    static final ConfigKey<Long> REVIVE_INTERVAL = key("reviveInterval", SECTION, longInteger(10, MAX_MS), "1000",
        "POP: pause between two rounds of a revive thread, ms");
    static final ConfigKey<Boolean> OFFSET_CHECK_IN_SLAVE = key("offsetCheckInSlave", SECTION, bool(), "false",
        "A slave corrects a consumer's illegal offset itself; without it the consumer is sent back to the master");

    /** The broker's own keys, in documentation order. */
    static final KeyTable BROKER = KeyTable.of(List.of(
        BROKER_CLUSTER_NAME, BROKER_NAME, BROKER_ID, BROKER_ROLE, LISTEN_PORT, GRPC_SERVER_PORT, GRPC_ADVERTISED_ADDRESS, DEFAULT_INVISIBLE_TIME_MILLS, BIND_ADDRESS,
        BROKER_IP1, BROKER_IP2,
        NAMESRV_ADDR, BROKER_PERMISSION,
        AUTO_CREATE_TOPIC_ENABLE, AUTO_CREATE_TOPIC_PER_CLIENT_PER_SECOND, DEFAULT_TOPIC_QUEUE_NUMS, CLUSTER_TOPIC_ENABLE, BROKER_TOPIC_ENABLE, TRACE_TOPIC_ENABLE,
        MSG_TRACE_TOPIC_NAME, AUTO_CREATE_SUBSCRIPTION_GROUP, STORE_REPLY_MESSAGE_ENABLE, ENABLE_PROPERTY_FILTER,
        SEND_MESSAGE_THREAD_POOL_NUMS, PULL_MESSAGE_THREAD_POOL_NUMS, SEND_THREAD_POOL_QUEUE_CAPACITY,
        PULL_THREAD_POOL_QUEUE_CAPACITY, WAIT_TIME_MILLS_IN_SEND_QUEUE, WAIT_TIME_MILLS_IN_PULL_QUEUE,
        WRITE_BUFFER_LOW_WATER_MARK, WRITE_BUFFER_HIGH_WATER_MARK, REMOTING_UNWRITABLE_CLOSE_MILLIS,
        REMOTING_PARTIAL_FRAME_BUDGET_BYTES, REMOTING_FRAME_COMPLETE_TIMEOUT_MILLIS,
        FLUSH_CONSUMER_OFFSET_INTERVAL, REGISTER_NAME_SERVER_PERIOD, METRICS_PORT, METRICS_LABEL, FLUSH_DELAY_OFFSET_INTERVAL,
        DELAY_OFFSET_UPDATE_VERSION_STEP, SCHEDULE_ASYNC_DELIVER_MAX_PENDING_LIMIT, REJECT_TRANSACTION_MESSAGE,
        TRANSACTION_TIME_OUT, TRANSACTION_CHECK_INTERVAL, TRANSACTION_CHECK_MAX, TRANSACTION_OP_MSG_MAX_SIZE,
        TRANSACTION_OP_BATCH_INTERVAL, TRANSACTION_METRIC_FLUSH_INTERVAL, END_TRANSACTION_THREAD_POOL_NUMS,
        END_TRANSACTION_POOL_QUEUE_CAPACITY, WAIT_TIME_MILLS_IN_TRANSACTION_QUEUE, LOGS_DIR, PID_FILE, STORE_PATH_EPOCH_FILE, HA_MASTER_ADDRESS,
        SLAVE_READ_ENABLE, OFFSET_CHECK_IN_SLAVE, USE_SERVER_SIDE_RESET_OFFSET, DEFAULT_MESSAGE_REQUEST_MODE,
        DEFAULT_POP_SHARE_QUEUE_NUM, REVIVE_QUEUE_NUM, REVIVE_INTERVAL, ENABLE_CONTROLLER_MODE, CONTROLLER_ADDR, SYNC_BROKER_METADATA_PERIOD,
        CHECK_SYNC_STATE_SET_PERIOD, SYNC_CONTROLLER_METADATA_PERIOD, CONTROLLER_HEART_BEAT_TIMEOUT_MILLS,
        BROKER_HEARTBEAT_INTERVAL, SEND_HEARTBEAT_TIMEOUT_MILLIS, BROKER_ELECTION_PRIORITY, STORE_PATH_BROKER_IDENTITY));

    /**
     * RocketMQ's BrokerStartup puts the HA port next to the remoting port; only the broker knows
     * listenPort, so it gives replication's key that default here.
     */
    private static final ConfigKey<Integer> HA_LISTEN_PORT = HAKeys.HA_LISTEN_PORT.withDefault(
        "listenPort + 1 (0 if listenPort is 0)", r -> {
            int listenPort = r.get(LISTEN_PORT);
            return String.valueOf(listenPort == 0 ? 0 : listenPort + 1);
        });

    /** Every key of {@code broker.conf}: the broker's, the store's, replication's. */
    static final KeyTable TABLE = BROKER.plus(SecurityKeys.TABLE).plus(StoreKeys.TABLE).plus(HAKeys.TABLE)
        .replacing(HA_LISTEN_PORT);

    private ConfigKeys() {
    }
}
