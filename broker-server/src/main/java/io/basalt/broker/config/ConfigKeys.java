package io.basalt.broker.config;

import static io.basalt.broker.config.ConfigKey.Section.BROKER;
import static io.basalt.broker.config.ConfigKey.Section.HA;
import static io.basalt.broker.config.ConfigKey.Section.STORE;
import static io.basalt.broker.config.ConfigKey.computed;
import static io.basalt.broker.config.ConfigKey.key;
import static io.basalt.broker.config.ValueTypes.bool;
import static io.basalt.broker.config.ValueTypes.hostPortList;
import static io.basalt.broker.config.ValueTypes.hoursOfDay;
import static io.basalt.broker.config.ValueTypes.integer;
import static io.basalt.broker.config.ValueTypes.longInteger;
import static io.basalt.broker.config.ValueTypes.oneOf;
import static io.basalt.broker.config.ValueTypes.optionalHostPort;
import static io.basalt.broker.config.ValueTypes.path;
import static io.basalt.broker.config.ValueTypes.token;

import io.basalt.store.FlushDiskType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every key Basalt implements, one line each. Names and defaults are RocketMQ 5.2.0's unless the
 * description says otherwise. Order matters only for computed defaults: a key may compute its
 * default from keys above it. Ranges are Basalt's: RocketMQ accepts any number and sometimes clamps
 * it silently; Basalt says what is wrong instead.
 */
final class ConfigKeys {

    private static final int MAX_MS = 3_600_000;
    private static final int DAY_MS = 86_400_000;
    private static final int MAX = Integer.MAX_VALUE;

    // Identity and network
    static final ConfigKey<String> BROKER_CLUSTER_NAME = key("brokerClusterName", BROKER, token("a name without spaces"), "DefaultCluster",
        "Cluster the broker belongs to");
    static final ConfigKey<String> BROKER_NAME = computed("brokerName", BROKER, token("a name without spaces"), "the host name",
        r -> r.environment().hostName().get(), "Broker group name; a master and its slaves share it");
    static final ConfigKey<Long> BROKER_ID = key("brokerId", BROKER, longInteger(0, Long.MAX_VALUE), "0",
        "0 is the master; a slave has a positive id");
    static final ConfigKey<BrokerRole> BROKER_ROLE = key("brokerRole", BROKER, oneOf(BrokerRole.class), "ASYNC_MASTER",
        "ASYNC_MASTER, SYNC_MASTER (a send is acknowledged once a slave has it) or SLAVE");
    static final ConfigKey<Integer> LISTEN_PORT = key("listenPort", BROKER, integer(0, 65535), "10911",
        "Remoting port that clients and tools connect to (0 picks a free port)");
    static final ConfigKey<String> BIND_ADDRESS = key("bindAddress", BROKER, token("an address without spaces"), "0.0.0.0",
        "Local address the remoting and HA ports listen on");
    static final ConfigKey<String> BROKER_IP1 = computed("brokerIP1", BROKER, token("an address without spaces"), "an address of this host",
        r -> r.environment().localAddress().get(), "Address the broker advertises to clients and name servers");
    static final ConfigKey<List<HostPort>> NAMESRV_ADDR = computed("namesrvAddr", BROKER, hostPortList(),
        "$NAMESRV_ADDR, else none",
        r -> r.environment().variable("rocketmq.namesrv.addr").or(() -> r.environment().variable("NAMESRV_ADDR")).orElse(""),
        "Name servers to register with, host:port separated by ';'; none: the broker answers route queries itself");

    // Topics
    static final ConfigKey<Boolean> AUTO_CREATE_TOPIC_ENABLE = key("autoCreateTopicEnable", BROKER, bool(), "true",
        "Create a topic on its first send");
    static final ConfigKey<Integer> DEFAULT_TOPIC_QUEUE_NUMS = key("defaultTopicQueueNums", BROKER, integer(1, 1024), "8",
        "Queues of an auto-created topic");

    // Consumer groups
    static final ConfigKey<Boolean> AUTO_CREATE_SUBSCRIPTION_GROUP = key("autoCreateSubscriptionGroup", BROKER, bool(), "true",
        "Record a consumer group in config/subscriptionGroup.json on its first heartbeat or pull");

    // Request thread pools
    static final ConfigKey<Integer> SEND_MESSAGE_THREAD_POOL_NUMS = computed("sendMessageThreadPoolNums", BROKER, integer(1, 256),
        "min(processors, 4)", r -> String.valueOf(Math.min(r.environment().processors(), 4)), "Threads that handle sends");
    static final ConfigKey<Integer> PULL_MESSAGE_THREAD_POOL_NUMS = computed("pullMessageThreadPoolNums", BROKER, integer(1, 1024),
        "16 + 2 * processors", r -> String.valueOf(16 + 2 * r.environment().processors()), "Threads that handle pulls");
    static final ConfigKey<Integer> SEND_THREAD_POOL_QUEUE_CAPACITY = key("sendThreadPoolQueueCapacity", BROKER, integer(1, MAX), "10000",
        "Send requests that may wait for a send thread");
    static final ConfigKey<Integer> PULL_THREAD_POOL_QUEUE_CAPACITY = key("pullThreadPoolQueueCapacity", BROKER, integer(1, MAX), "100000",
        "Pull requests that may wait for a pull thread");
    static final ConfigKey<Long> WAIT_TIME_MILLS_IN_SEND_QUEUE = key("waitTimeMillsInSendQueue", BROKER, longInteger(1, MAX_MS), "200",
        "A send that waited longer than this in the queue is answered SYSTEM_BUSY, ms");
    static final ConfigKey<Long> WAIT_TIME_MILLS_IN_PULL_QUEUE = key("waitTimeMillsInPullQueue", BROKER, longInteger(1, MAX_MS), "5000",
        "A pull that waited longer than this in the queue is answered SYSTEM_BUSY, ms");

    // Periodic broker work
    static final ConfigKey<Integer> FLUSH_CONSUMER_OFFSET_INTERVAL = key("flushConsumerOffsetInterval", BROKER, integer(100, MAX_MS), "5000",
        "Period of persisting consumer offsets to config/consumerOffset.json, ms");
    static final ConfigKey<Integer> REGISTER_NAME_SERVER_PERIOD = key("registerNameServerPeriod", BROKER, integer(10_000, 60_000), "30000",
        "Period of registering with the name servers, ms");
    static final ConfigKey<Integer> METRICS_PORT = key("metricsPort", BROKER, integer(0, 65535), "5557",
        "Basalt: port of the Prometheus /metrics endpoint and the status page at / (0 disables them)");

    // Store: layout
    static final ConfigKey<Path> STORE_PATH_ROOT_DIR = key("storePathRootDir", STORE, path(), "${user.home}/store",
        "Root of the store: commitlog/, consumequeue/, index/, config/, checkpoint, abort");
    static final ConfigKey<Path> STORE_PATH_COMMIT_LOG = computed("storePathCommitLog", STORE, path(), "<storePathRootDir>/commitlog",
        r -> r.get(ConfigKeys.STORE_PATH_ROOT_DIR).resolve("commitlog").toString(), "Directory of the CommitLog files");
    static final ConfigKey<Integer> MAPPED_FILE_SIZE_COMMIT_LOG = key("mappedFileSizeCommitLog", STORE, integer(64 * 1024, 2_147_479_552, 4096),
        "1073741824", "Size of one CommitLog file, bytes");
    static final ConfigKey<Integer> MAPPED_FILE_SIZE_CONSUME_QUEUE = key("mappedFileSizeConsumeQueue", STORE, integer(20, 2_147_483_640), "6000000",
        "Size of one ConsumeQueue file, bytes (rounded up to a multiple of the 20-byte entry)");

    // Store: flush and commit
    static final ConfigKey<FlushDiskType> FLUSH_DISK_TYPE = key("flushDiskType", STORE, oneOf(FlushDiskType.class), "ASYNC_FLUSH",
        "ASYNC_FLUSH (acknowledge from the page cache) or SYNC_FLUSH (acknowledge after the disk has it)");
    static final ConfigKey<Integer> FLUSH_INTERVAL_COMMIT_LOG = key("flushIntervalCommitLog", STORE, integer(1, MAX_MS), "500",
        "Period of the asynchronous CommitLog flush, ms");
    static final ConfigKey<Integer> FLUSH_COMMIT_LOG_LEAST_PAGES = key("flushCommitLogLeastPages", STORE, integer(0, 1_000_000), "4",
        "Dirty 4 KiB pages before an asynchronous flush");
    static final ConfigKey<Integer> FLUSH_COMMIT_LOG_THOROUGH_INTERVAL = key("flushCommitLogThoroughInterval", STORE, integer(0, DAY_MS), "10000",
        "Flush whatever is dirty at least this often, ms");
    static final ConfigKey<Boolean> FLUSH_COMMIT_LOG_TIMED = key("flushCommitLogTimed", STORE, bool(), "true",
        "The asynchronous flusher waits its period (true) or until woken by a write (false)");
    static final ConfigKey<Integer> COMMIT_INTERVAL_COMMIT_LOG = key("commitIntervalCommitLog", STORE, integer(1, MAX_MS), "200",
        "Period of committing the transient store pool's buffers to the file, ms");
    static final ConfigKey<Integer> COMMIT_COMMIT_LOG_LEAST_PAGES = key("commitCommitLogLeastPages", STORE, integer(0, 1_000_000), "4",
        "Dirty 4 KiB pages before a commit");
    static final ConfigKey<Integer> COMMIT_COMMIT_LOG_THOROUGH_INTERVAL = key("commitCommitLogThoroughInterval", STORE, integer(0, DAY_MS), "200",
        "Commit whatever is dirty at least this often, ms");
    static final ConfigKey<Integer> SYNC_FLUSH_TIMEOUT = key("syncFlushTimeout", STORE, integer(1, MAX_MS), "5000",
        "SYNC_FLUSH: wait this long for the disk before answering FLUSH_DISK_TIMEOUT, ms");
    static final ConfigKey<Integer> MAX_MESSAGE_SIZE = key("maxMessageSize", STORE, integer(1, MAX), "4194304",
        "Largest accepted message body, bytes");
    static final ConfigKey<Long> OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS = key("osPageCacheBusyTimeOutMills", STORE, longInteger(1, MAX_MS), "1000",
        "An append holding the put lock longer than this makes sends answer SYSTEM_BUSY (page cache busy), ms");
    static final ConfigKey<Boolean> TRANSIENT_STORE_POOL_ENABLE = key("transientStorePoolEnable", STORE, bool(), "false",
        "Write through off-heap buffers committed to the file (ASYNC_FLUSH masters only)");
    static final ConfigKey<Integer> TRANSIENT_STORE_POOL_SIZE = key("transientStorePoolSize", STORE, integer(1, 1024), "5",
        "Off-heap buffers of the transient store pool, each mappedFileSizeCommitLog bytes");
    static final ConfigKey<Boolean> WARM_MAPED_FILE_ENABLE = key("warmMapedFileEnable", STORE, bool(), "true",
        "Basalt default true (RocketMQ: false): prefault a new CommitLog file before it is written");
    static final ConfigKey<Integer> FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE = key("flushLeastPagesWhenWarmMapedFile", STORE,
        integer(1, MAX), "4096", "Pages written between forces while warming a file");

    // Store: ConsumeQueue and index
    static final ConfigKey<Integer> FLUSH_INTERVAL_CONSUME_QUEUE = key("flushIntervalConsumeQueue", STORE, integer(1, MAX_MS), "1000",
        "Period of the ConsumeQueue flush, ms");
    static final ConfigKey<Integer> FLUSH_CONSUME_QUEUE_LEAST_PAGES = key("flushConsumeQueueLeastPages", STORE, integer(0, 1_000_000), "2",
        "Dirty 4 KiB pages before a ConsumeQueue flush");
    static final ConfigKey<Integer> FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL = key("flushConsumeQueueThoroughInterval", STORE,
        integer(0, DAY_MS), "60000", "Flush every dirty ConsumeQueue page at least this often, ms");
    static final ConfigKey<Boolean> MESSAGE_INDEX_ENABLE = key("messageIndexEnable", STORE, bool(), "true",
        "Index messages by key and unique id (query by key, view by id)");
    static final ConfigKey<Integer> MAX_HASH_SLOT_NUM = key("maxHashSlotNum", STORE, integer(1, 50_000_000), "5000000",
        "Hash slots of one index file");
    static final ConfigKey<Integer> MAX_INDEX_NUM = key("maxIndexNum", STORE, integer(1, 100_000_000), "20000000",
        "Entries of one index file");
    static final ConfigKey<Boolean> CHECK_CRC_ON_RECOVER = key("checkCRCOnRecover", STORE, bool(), "true",
        "Check each record's body CRC while recovering the CommitLog");
    static final ConfigKey<Boolean> ENABLED_APPEND_PROP_CRC = key("enabledAppendPropCRC", STORE, bool(), "false",
        "End each appended record with the record CRC property (covers topic and properties); recovery requires it from then on");

    // Store: retention
    static final ConfigKey<Integer> FILE_RESERVED_TIME = key("fileReservedTime", STORE, integer(1, 87_600), "72",
        "Keep CommitLog files at least this long, hours");
    static final ConfigKey<List<Integer>> DELETE_WHEN = key("deleteWhen", STORE, hoursOfDay(), "04",
        "Hours of the day when expired files are deleted, separated by ';'");
    static final ConfigKey<Integer> DISK_MAX_USED_SPACE_RATIO = key("diskMaxUsedSpaceRatio", STORE, integer(10, 95), "75",
        "Above this percentage of disk used, expired files are deleted at any hour");

    // HA
    static final ConfigKey<Integer> HA_LISTEN_PORT = computed("haListenPort", HA, integer(0, 65535), "listenPort + 1 (0 if listenPort is 0)",
        r -> {
            int listenPort = r.get(ConfigKeys.LISTEN_PORT);
            return String.valueOf(listenPort == 0 ? 0 : listenPort + 1);
        }, "Port a master listens on for its slaves (0 picks a free port)");
    static final ConfigKey<Optional<HostPort>> HA_MASTER_ADDRESS = key("haMasterAddress", HA, optionalHostPort(), "",
        "A slave's master, host:haListenPort; a slave needs it");
    static final ConfigKey<Integer> HA_MAX_GAP_NOT_IN_SYNC = key("haMaxGapNotInSync", HA, integer(0, MAX), "268435456",
        "A slave further behind than this many bytes is not in sync");
    static final ConfigKey<Integer> HA_SEND_HEARTBEAT_INTERVAL = key("haSendHeartbeatInterval", HA, integer(1, MAX_MS), "5000",
        "A slave reports its offset at least this often, ms");
    static final ConfigKey<Integer> HA_HOUSEKEEPING_INTERVAL = key("haHousekeepingInterval", HA, integer(1, MAX_MS), "20000",
        "A connection silent for this long is closed, ms");
    static final ConfigKey<Integer> HA_TRANSFER_BATCH_SIZE = key("haTransferBatchSize", HA, integer(1, 64 * 1024 * 1024), "32768",
        "Most bytes a master sends a slave in one transfer");
    static final ConfigKey<Integer> SLAVE_TIMEOUT = key("slaveTimeout", HA, integer(1, MAX_MS), "3000",
        "SYNC_MASTER: wait this long for a slave before answering FLUSH_SLAVE_TIMEOUT, ms");

    // Files beside the store (after storePathRootDir, which their defaults use)
    static final ConfigKey<Path> LOGS_DIR = computed("logsDir", BROKER, path(), "logs/ beside storePathRootDir",
        r -> r.get(ConfigKeys.STORE_PATH_ROOT_DIR).resolveSibling("logs").toString(),
        "Basalt: directory of broker.log, store.log, remoting.log and stats.log");
    static final ConfigKey<Path> PID_FILE = computed("pidFile", BROKER, path(), "<storePathRootDir>/broker.pid",
        r -> r.get(ConfigKeys.STORE_PATH_ROOT_DIR).resolve("broker.pid").toString(),
        "Basalt: file holding the process id of a running broker; stop reads it");

    /** The table, in resolution order. */
    static final List<ConfigKey<?>> ALL = List.of(
        BROKER_CLUSTER_NAME, BROKER_NAME, BROKER_ID, BROKER_ROLE, LISTEN_PORT, BIND_ADDRESS, BROKER_IP1, NAMESRV_ADDR,
        AUTO_CREATE_TOPIC_ENABLE, DEFAULT_TOPIC_QUEUE_NUMS, AUTO_CREATE_SUBSCRIPTION_GROUP,
        SEND_MESSAGE_THREAD_POOL_NUMS, PULL_MESSAGE_THREAD_POOL_NUMS, SEND_THREAD_POOL_QUEUE_CAPACITY,
        PULL_THREAD_POOL_QUEUE_CAPACITY, WAIT_TIME_MILLS_IN_SEND_QUEUE, WAIT_TIME_MILLS_IN_PULL_QUEUE,
        FLUSH_CONSUMER_OFFSET_INTERVAL, REGISTER_NAME_SERVER_PERIOD, METRICS_PORT,
        STORE_PATH_ROOT_DIR, STORE_PATH_COMMIT_LOG, MAPPED_FILE_SIZE_COMMIT_LOG, MAPPED_FILE_SIZE_CONSUME_QUEUE,
        FLUSH_DISK_TYPE, FLUSH_INTERVAL_COMMIT_LOG, FLUSH_COMMIT_LOG_LEAST_PAGES, FLUSH_COMMIT_LOG_THOROUGH_INTERVAL,
        FLUSH_COMMIT_LOG_TIMED, COMMIT_INTERVAL_COMMIT_LOG, COMMIT_COMMIT_LOG_LEAST_PAGES, COMMIT_COMMIT_LOG_THOROUGH_INTERVAL,
        SYNC_FLUSH_TIMEOUT, MAX_MESSAGE_SIZE, OS_PAGE_CACHE_BUSY_TIME_OUT_MILLS, TRANSIENT_STORE_POOL_ENABLE,
        TRANSIENT_STORE_POOL_SIZE, WARM_MAPED_FILE_ENABLE, FLUSH_LEAST_PAGES_WHEN_WARM_MAPED_FILE,
        FLUSH_INTERVAL_CONSUME_QUEUE, FLUSH_CONSUME_QUEUE_LEAST_PAGES, FLUSH_CONSUME_QUEUE_THOROUGH_INTERVAL,
        MESSAGE_INDEX_ENABLE, MAX_HASH_SLOT_NUM, MAX_INDEX_NUM, CHECK_CRC_ON_RECOVER, ENABLED_APPEND_PROP_CRC,
        FILE_RESERVED_TIME, DELETE_WHEN, DISK_MAX_USED_SPACE_RATIO,
        HA_LISTEN_PORT, HA_MASTER_ADDRESS, HA_MAX_GAP_NOT_IN_SYNC, HA_SEND_HEARTBEAT_INTERVAL, HA_HOUSEKEEPING_INTERVAL,
        HA_TRANSFER_BATCH_SIZE, SLAVE_TIMEOUT,
        LOGS_DIR, PID_FILE);

    private static final Map<String, ConfigKey<?>> BY_NAME = byName();

    private ConfigKeys() {
    }

    static Optional<ConfigKey<?>> named(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    private static Map<String, ConfigKey<?>> byName() {
        Map<String, ConfigKey<?>> byName = new LinkedHashMap<>();
        for (ConfigKey<?> key : ALL) {
            if (byName.put(key.name(), key) != null) {
                throw new IllegalStateException("configuration key listed twice: " + key.name());
            }
        }
        return byName;
    }
}
