package io.basalt.broker.config;

import io.basalt.broker.assignment.MessageRequestMode;
import io.basalt.ha.BrokerRole;

import io.basalt.common.config.ConfigValues;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Broker-level settings: identity, network, topics, request thread pools, periodic work, metrics,
 * the files beside the store and a slave's master. Built only from the resolved values of
 * {@link ConfigKeys#BROKER}; immutable; obtained from {@link BrokerConfiguration#broker()}. Names are
 * RocketMQ's ({@code BrokerConfig}, {@code NettyServerConfig}) except where noted.
 */
public final class BrokerConfig {

    private final ConfigValues values;

    BrokerConfig(ConfigValues values) {
        this.values = values;
    }

    public String brokerClusterName() {
        return values.get(ConfigKeys.BROKER_CLUSTER_NAME);
    }

    public String brokerName() {
        return values.get(ConfigKeys.BROKER_NAME);
    }

    /** 0 for a master (whatever the file said), positive for a slave; in controller mode the configured value (-1: unassigned). */
    public long brokerId() {
        return values.get(ConfigKeys.BROKER_ID);
    }

    public BrokerRole brokerRole() {
        return values.get(ConfigKeys.BROKER_ROLE);
    }

    /** Remoting port; 0 asks for a free one. */
    public int listenPort() {
        return values.get(ConfigKeys.LISTEN_PORT);
    }

    /** Port of the gRPC endpoint (RocketMQ 5.x SDKs); 0 asks for a free one, -1 means no endpoint. */
    public int grpcServerPort() {
        return values.get(ConfigKeys.GRPC_SERVER_PORT);
    }

    /** The host:port gRPC routes advertise for this broker, when configured. */
    public Optional<HostPort> grpcAdvertisedAddress() {
        return values.get(ConfigKeys.GRPC_ADVERTISED_ADDRESS);
    }

    /** Invisible time of gRPC auto-renew receives, ms. */
    public long defaultInvisibleTimeMills() {
        return values.get(ConfigKeys.DEFAULT_INVISIBLE_TIME_MILLS);
    }

    public String bindAddress() {
        return values.get(ConfigKeys.BIND_ADDRESS);
    }

    /** The address advertised to clients and name servers. */
    public String brokerIP1() {
        return values.get(ConfigKeys.BROKER_IP1);
    }

    /** The address a master advertises for replication (its haServerAddr's host). */
    public String brokerIP2() {
        return values.get(ConfigKeys.BROKER_IP2);
    }

    /** Name servers to register with; empty when the broker serves routes alone. */
    public List<HostPort> namesrvAddr() {
        return values.get(ConfigKeys.NAMESRV_ADDR);
    }

    /** RocketMQ's bits READ 4, WRITE 2, INHERIT 1 (6 by default). */
    public int brokerPermission() {
        return values.get(ConfigKeys.BROKER_PERMISSION);
    }

    public boolean autoCreateTopicEnable() {
        return values.get(ConfigKeys.AUTO_CREATE_TOPIC_ENABLE);
    }

    /** Topics one client host may auto-create per second by sending; 0 means no limit. */
    public int autoCreateTopicPerClientPerSecond() {
        return values.get(ConfigKeys.AUTO_CREATE_TOPIC_PER_CLIENT_PER_SECOND);
    }

    public int defaultTopicQueueNums() {
        return values.get(ConfigKeys.DEFAULT_TOPIC_QUEUE_NUMS);
    }

    /** Whether the cluster-name topic created at start is readable and writable (else perm INHERIT only). */
    public boolean clusterTopicEnable() {
        return values.get(ConfigKeys.CLUSTER_TOPIC_ENABLE);
    }

    /** Whether the broker-name topic created at start is readable and writable (else perm INHERIT only). */
    public boolean brokerTopicEnable() {
        return values.get(ConfigKeys.BROKER_TOPIC_ENABLE);
    }

    /** Whether the trace topic {@link #msgTraceTopicName()} is created at start. */
    public boolean traceTopicEnable() {
        return values.get(ConfigKeys.TRACE_TOPIC_ENABLE);
    }

    public String msgTraceTopicName() {
        return values.get(ConfigKeys.MSG_TRACE_TOPIC_NAME);
    }

    /** Whether an unknown consumer group is created on its first heartbeat or pull (RocketMQ's system groups always are). */
    public boolean autoCreateSubscriptionGroup() {
        return values.get(ConfigKeys.AUTO_CREATE_SUBSCRIPTION_GROUP);
    }

    /** Whether a reply is stored in its reply topic besides being pushed to its requester. */
    public boolean storeReplyMessageEnable() {
        return values.get(ConfigKeys.STORE_REPLY_MESSAGE_ENABLE);
    }

    /** Whether SQL92 subscriptions are served (RocketMQ's enablePropertyFilter). */
    public boolean enablePropertyFilter() {
        return values.get(ConfigKeys.ENABLE_PROPERTY_FILTER);
    }

    public int sendMessageThreadPoolNums() {
        return values.get(ConfigKeys.SEND_MESSAGE_THREAD_POOL_NUMS);
    }

    public int pullMessageThreadPoolNums() {
        return values.get(ConfigKeys.PULL_MESSAGE_THREAD_POOL_NUMS);
    }

    public int sendThreadPoolQueueCapacity() {
        return values.get(ConfigKeys.SEND_THREAD_POOL_QUEUE_CAPACITY);
    }

    public int pullThreadPoolQueueCapacity() {
        return values.get(ConfigKeys.PULL_THREAD_POOL_QUEUE_CAPACITY);
    }

    /** Bytes; 0 with a high mark of 0 means Netty's default. */
    public int writeBufferLowWaterMark() {
        return values.get(ConfigKeys.WRITE_BUFFER_LOW_WATER_MARK);
    }

    /** Bytes; 0 with a low mark of 0 means Netty's default. */
    public int writeBufferHighWaterMark() {
        return values.get(ConfigKeys.WRITE_BUFFER_HIGH_WATER_MARK);
    }

    /** ms; 0 never. */
    public long remotingUnwritableCloseMillis() {
        return values.get(ConfigKeys.REMOTING_UNWRITABLE_CLOSE_MILLIS);
    }

    public long remotingPartialFrameBudgetBytes() {
        return values.get(ConfigKeys.REMOTING_PARTIAL_FRAME_BUDGET_BYTES);
    }

    /** ms; 0 no limit. */
    public long remotingFrameCompleteTimeoutMillis() {
        return values.get(ConfigKeys.REMOTING_FRAME_COMPLETE_TIMEOUT_MILLIS);
    }

    /** ms. */
    public long waitTimeMillsInSendQueue() {
        return values.get(ConfigKeys.WAIT_TIME_MILLS_IN_SEND_QUEUE);
    }

    /** ms. */
    public long waitTimeMillsInPullQueue() {
        return values.get(ConfigKeys.WAIT_TIME_MILLS_IN_PULL_QUEUE);
    }

    /** ms. */
    /** Period of rewriting config/delayOffset.json, ms. */
    public int flushDelayOffsetInterval() {
        return values.get(ConfigKeys.FLUSH_DELAY_OFFSET_INTERVAL);
    }

    /** Delivery offset updates per dataVersion step of delayOffset.json. */
    public int delayOffsetUpdateVersionStep() {
        return values.get(ConfigKeys.DELAY_OFFSET_UPDATE_VERSION_STEP);
    }

    /** Puts in flight per delay level. */
    public int scheduleAsyncDeliverMaxPendingLimit() {
        return values.get(ConfigKeys.SCHEDULE_ASYNC_DELIVER_MAX_PENDING_LIMIT);
    }

    public int flushConsumerOffsetInterval() {
        return values.get(ConfigKeys.FLUSH_CONSUMER_OFFSET_INTERVAL);
    }

    /** ms. */
    public int registerNameServerPeriod() {
        return values.get(ConfigKeys.REGISTER_NAME_SERVER_PERIOD);
    }

    /** Basalt's metrics endpoint port; 0 asks for a free one. */
    public int metricsPort() {
        return values.get(ConfigKeys.METRICS_PORT);
    }

    /** RocketMQ's metricsLabel: extra labels of every rocketmq_* metric, in the order given. */
    public java.util.Map<String, String> metricsLabels() {
        return MetricsLabels.parse(values.get(ConfigKeys.METRICS_LABEL));
    }

    /** Basalt: directory of broker.log, store.log, remoting.log, stats.log (absolute). */
    public Path logsDir() {
        return values.get(ConfigKeys.LOGS_DIR);
    }

    /** Basalt: where a running broker writes its process id and {@code stop} reads it (absolute). */
    public Path pidFile() {
        return values.get(ConfigKeys.PID_FILE);
    }

    /** Replication's epoch file ({@code storePathEpochFile}; default {@code <storePathRootDir>/epochFileCheckpoint}). */
    public Path storePathEpochFile() {
        return values.get(ConfigKeys.STORE_PATH_EPOCH_FILE);
    }

    /** A slave's master, {@code host:haListenPort} (required for a slave); empty on a master. */
    public Optional<HostPort> haMasterAddress() {
        return values.get(ConfigKeys.HA_MASTER_ADDRESS);
    }

    /** Whether consumers may read from slaves (RocketMQ's default false: a slave rejects pulls). */
    public boolean slaveReadEnable() {
        return values.get(ConfigKeys.SLAVE_READ_ENABLE);
    }

    /** Whether a slave corrects an illegal pull offset itself instead of sending the consumer to the master. */
    public boolean offsetCheckInSlave() {
        return values.get(ConfigKeys.OFFSET_CHECK_IN_SLAVE);
    }

    /** Whether offset resets are recorded by the broker and delivered by pulls (RocketMQ 5.x) or sent to the clients. */
    public boolean useServerSideResetOffset() {
        return values.get(ConfigKeys.USE_SERVER_SIDE_RESET_OFFSET);
    }

    /** The request mode of a topic and group without one set (SET_MESSAGE_REQUEST_MODE). */
    public MessageRequestMode defaultMessageRequestMode() {
        return values.get(ConfigKeys.DEFAULT_MESSAGE_REQUEST_MODE);
    }

    /** The POP share count of {@link #defaultMessageRequestMode()} POP. */
    public int defaultPopShareQueueNum() {
        return values.get(ConfigKeys.DEFAULT_POP_SHARE_QUEUE_NUM);
    }

    /** POP: queues of the revive topic and revive threads. */
    public int reviveQueueNum() {
        return values.get(ConfigKeys.REVIVE_QUEUE_NUM);
    }

    /** POP: pause between two rounds of a revive thread, ms. */
    public long reviveInterval() {
        return values.get(ConfigKeys.REVIVE_INTERVAL);
    }

    // ---- transactions ----

    /** Whether half messages are refused (NO_PERMISSION). */
    public boolean rejectTransactionMessage() {
        return values.get(ConfigKeys.REJECT_TRANSACTION_MESSAGE);
    }

    /** Age before the first back-check, and the floor of a message's check immunity, ms. */
    public long transactionTimeOut() {
        return values.get(ConfigKeys.TRANSACTION_TIME_OUT);
    }

    /** Period of the back-check scan, ms. */
    public long transactionCheckInterval() {
        return values.get(ConfigKeys.TRANSACTION_CHECK_INTERVAL);
    }

    /** Back-checks of one half message before it is given up. */
    public int transactionCheckMax() {
        return values.get(ConfigKeys.TRANSACTION_CHECK_MAX);
    }

    /** Target body size of one op marker, characters. */
    public int transactionOpMsgMaxSize() {
        return values.get(ConfigKeys.TRANSACTION_OP_MSG_MAX_SIZE);
    }

    /** Longest an op marker waits to be written with others, ms. */
    public int transactionOpBatchInterval() {
        return values.get(ConfigKeys.TRANSACTION_OP_BATCH_INTERVAL);
    }

    /** Period of writing config/transactionMetrics, ms. */
    public long transactionMetricFlushInterval() {
        return values.get(ConfigKeys.TRANSACTION_METRIC_FLUSH_INTERVAL);
    }

    /** Threads of the END_TRANSACTION executor. */
    public int endTransactionThreadPoolNums() {
        return values.get(ConfigKeys.END_TRANSACTION_THREAD_POOL_NUMS);
    }

    /** Queue capacity of the END_TRANSACTION executor. */
    public int endTransactionPoolQueueCapacity() {
        return values.get(ConfigKeys.END_TRANSACTION_POOL_QUEUE_CAPACITY);
    }

    /** Longest an END_TRANSACTION waits in its queue, ms. */
    public long waitTimeMillsInTransactionQueue() {
        return values.get(ConfigKeys.WAIT_TIME_MILLS_IN_TRANSACTION_QUEUE);
    }

    // ---- controller mode ----

    /** Whether the RocketMQ Controller decides this broker's role and id. */
    public boolean enableControllerMode() {
        return values.get(ConfigKeys.ENABLE_CONTROLLER_MODE);
    }

    /** Every controller node (non-empty in controller mode). */
    public List<HostPort> controllerAddr() {
        return values.get(ConfigKeys.CONTROLLER_ADDR);
    }

    /** Period of GET_REPLICA_INFO, ms. */
    public int syncBrokerMetadataPeriod() {
        return values.get(ConfigKeys.SYNC_BROKER_METADATA_PERIOD);
    }

    /** Period of a master's SyncStateSet check, ms. */
    public int checkSyncStateSetPeriod() {
        return values.get(ConfigKeys.CHECK_SYNC_STATE_SET_PERIOD);
    }

    /** Period of the controller leader lookup, ms. */
    public int syncControllerMetadataPeriod() {
        return values.get(ConfigKeys.SYNC_CONTROLLER_METADATA_PERIOD);
    }

    /** Heartbeat validity the controller is told, and how long a master goes without reaching it before it fences, ms. */
    public long controllerHeartBeatTimeoutMills() {
        return values.get(ConfigKeys.CONTROLLER_HEART_BEAT_TIMEOUT_MILLS);
    }

    /** Heartbeat period, ms. */
    public long brokerHeartbeatInterval() {
        return values.get(ConfigKeys.BROKER_HEARTBEAT_INTERVAL);
    }

    /** Timeout of sending one heartbeat, ms. */
    public long sendHeartbeatTimeoutMillis() {
        return values.get(ConfigKeys.SEND_HEARTBEAT_TIMEOUT_MILLIS);
    }

    /** Election priority (lower wins a tie). */
    public int brokerElectionPriority() {
        return values.get(ConfigKeys.BROKER_ELECTION_PRIORITY);
    }

    /** The file holding the controller-assigned broker id (absolute). */
    public Path storePathBrokerIdentity() {
        return values.get(ConfigKeys.STORE_PATH_BROKER_IDENTITY);
    }
}
