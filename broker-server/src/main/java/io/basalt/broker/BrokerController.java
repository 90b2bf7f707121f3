package io.basalt.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.basalt.broker.assignment.LocalTopicQueues;
import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.assignment.NameServerTopicQueues;
import io.basalt.broker.assignment.TopicQueues;
import io.basalt.broker.auth.AccessControl;
import io.basalt.broker.auth.AclAdminProcessor;
import io.basalt.broker.auth.AclConfigException;
import io.basalt.broker.auth.AuthAdminProcessor;
import io.basalt.broker.auth.AuthCounters;
import io.basalt.broker.auth.PlainAclFiles;
import io.basalt.broker.auth.RequestSigner;
import io.basalt.broker.client.ClientManager;
import io.basalt.remoting.tls.TlsMode;
import io.basalt.remoting.tls.TlsSettings;
import io.netty.handler.ssl.SslContext;
import io.basalt.broker.client.ProducerChannels;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.config.BrokerConfig;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.config.ConfigException;
import io.basalt.broker.controller.BrokerIdentityFile;
import io.basalt.broker.controller.ControllerApi;
import io.basalt.broker.controller.ControllerRegistration;
import io.basalt.broker.controller.ControllerRoleManager;
import io.basalt.broker.controller.RemotingControllerClient;
import io.basalt.broker.controller.RoleChangeNotifyProcessor;
import io.basalt.broker.controller.SyncStateSetRule;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.grpc.GrpcServer;
import io.basalt.broker.metrics.BrokerMetrics;
import io.basalt.broker.metrics.HaMetrics;
import io.basalt.broker.metrics.MetricsService;
import io.basalt.broker.metrics.RocketMqMetrics;
import io.basalt.broker.metrics.MetricsSources;
import io.basalt.broker.namesrv.BrokerRegistration;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.HAProtocolsProcessor;
import io.basalt.broker.processor.PromoteToMasterProcessor;
import io.basalt.broker.processor.SlaveReadPolicy;
import io.basalt.broker.processor.admin.QueryAssignmentProcessor;
import io.basalt.broker.processor.admin.SlaveMetadataProcessor;
import io.basalt.broker.processor.admin.StoreMaintenanceProcessor;
import io.basalt.broker.schedule.DelayLevelTransform;
import io.basalt.broker.schedule.DueTopicGuard;
import io.basalt.broker.schedule.DelayOffsetFile;
import io.basalt.broker.schedule.ScheduleMessageService;
import io.basalt.broker.schedule.ScheduleSettings;
import io.basalt.broker.slave.SlaveSynchronize;
import io.basalt.ha.BrokerRole;
import io.basalt.ha.slave.ReplicaClient;
import io.basalt.ha.EpochFile;
import io.basalt.ha.Peer;
import io.basalt.ha.Replication;
import io.basalt.broker.processor.BrokerCounters;
import io.basalt.broker.processor.ClientManageProcessor;
import io.basalt.broker.processor.ConsumerOffsetProcessor;
import io.basalt.broker.processor.ConsumerSendMsgBackProcessor;
import io.basalt.broker.processor.PullMessageProcessor;
import io.basalt.broker.pop.OrderInfoTable;
import io.basalt.broker.pop.PopModule;
import io.basalt.broker.pop.PopRemotingProcessor;
import io.basalt.broker.processor.ReplyMessageProcessor;
import io.basalt.broker.processor.RouteProcessor;
import io.basalt.broker.processor.SendMessageProcessor;
import io.basalt.broker.processor.admin.HaAdminProcessor;
import io.basalt.broker.processor.admin.BrokerRuntimeInfoProcessor;
import io.basalt.broker.processor.admin.BrokerRuntimeStats;
import io.basalt.broker.processor.admin.ConsumerAdminProcessor;
import io.basalt.broker.processor.admin.BrokerConsumeStatsProcessor;
import io.basalt.broker.processor.admin.BrokerStatsProcessor;
import io.basalt.broker.processor.admin.ConsumerQueryProcessor;
import io.basalt.broker.processor.admin.SystemTopicListProcessor;
import io.basalt.broker.stats.BrokerStats;
import io.basalt.broker.processor.admin.ConsumerStatusProcessor;
import io.basalt.broker.processor.admin.GroupOffsetsProcessor;
import io.basalt.broker.processor.admin.OffsetResetProcessor;
import io.basalt.broker.stats.StatsItem;
import io.basalt.broker.processor.admin.NameServerTopicProcessor;
import io.basalt.broker.processor.admin.BrokerConfigProcessor;
import io.basalt.broker.config.RuntimeConfiguration;
import io.basalt.broker.config.NameServerSettings;
import io.basalt.broker.namesrv.KvConfigStore;
import io.basalt.broker.processor.admin.NameServerAdminProcessor;
import io.basalt.broker.processor.admin.QueryMessageProcessor;
import io.basalt.broker.processor.admin.ProducerAdminProcessor;
import io.basalt.broker.processor.admin.SubscriptionGroupAdminProcessor;
import io.basalt.broker.processor.admin.TimerAdminProcessor;
import io.basalt.broker.processor.admin.TopicAdminProcessor;
import io.basalt.broker.processor.ConsumerGroups;
import io.basalt.broker.processor.LongPolling;
import io.basalt.broker.processor.StoreHost;
import io.basalt.broker.namesrv.NameServerMasterLocator;
import io.basalt.broker.namesrv.NameServerPresence;
import io.basalt.broker.namesrv.NameServers;
import io.basalt.broker.namesrv.ReplicationView;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.BrokerPermission;
import io.basalt.broker.topic.QueuesOnDiskCheck;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.SystemTopics;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicCreationLimiter;
import io.basalt.broker.transaction.EndTransactionProcessor;
import io.basalt.broker.transaction.HalfMessageDecisions;
import io.basalt.broker.transaction.HalfMessageTransform;
import io.basalt.broker.transaction.OpMarkerWriter;
import io.basalt.broker.transaction.TransactionCounters;
import io.basalt.broker.transaction.TransactionDecisions;
import io.basalt.broker.transaction.TransactionMetrics;
import io.basalt.broker.transaction.TransactionMetricsProcessor;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.broker.transaction.CheckSettings;
import io.basalt.broker.transaction.ResumeCheckHalfMessageProcessor;
import io.basalt.broker.transaction.TransactionalMessageCheckService;
import io.basalt.broker.metadata.MetadataPersister;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.CloseReason;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles one broker from its configuration: store → topic, offset, subscription group and client
 * state → processors on their executors → remoting server → presence on the NameServers. {@link #start()}
 * goes bottom-up (a master the NameServers show to be deposed is fenced before anything is served, and
 * the broker registers once it listens); {@link #shutdown()} top-down: leave the NameServers, release held
 * pulls, stop accepting and answer what is in flight, persist offsets and topics, shut the store down
 * (flush, checkpoint, unmap, abort marker removed last). Both are idempotent; start and
 * shutdown are called from one thread (start-up, then the shutdown hook).
 */
public final class BrokerController {
    private static final Logger log = LoggerFactory.getLogger(BrokerController.class);
    /** RocketMQ's channelExpiredTimeout: a client silent this long is forgotten. */
    private static final long CHANNEL_EXPIRED_TIMEOUT_MS = 120_000;
    /** Longest a pull is held, below the clients' 30 s pull timeout. */
    private static final long MAX_SUSPEND_MS = 20_000;
    /** How long one NameServer may take to answer a registration. */
    private static final long NAMESRV_TIMEOUT_MS = 6_000;
    /** How often the ACL 1.0 files are checked for changes (RocketMQ's AclFileWatchService: 5 s). */
    private static final long ACL_RELOAD_PERIOD_MS = 5_000;
    /** Frame bytes besides a message body: header, properties, batch framing. */
    private static final int FRAME_HEADROOM = 1 << 20;

    private final BrokerConfiguration configuration;
    private final MessageStore store;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final SubscriptionGroupManager subscriptionGroups;
    private final ClientManager clients;
    private final TransactionCounters transactionCounters = new TransactionCounters();
    private final PullRequestHoldService pullHold;
    private final NettyRemotingServer remotingServer;
    /**
     * RocketMQ's "VIP channel" / fast remoting server: the same processors on listenPort − 2. RocketMQ's slaves ask
     * for the topic table there (GET_ALL_TOPIC_CONFIG), and clients with {@code sendMessageWithVIPChannel} send there.
     */
    private final NettyRemotingServer fastRemotingServer;
    /**
     * A slave's copy of its master's metadata; null on a broker configured as master. In controller mode a new one
     * for each time the broker becomes a slave, stopped when it becomes master.
     */
    private volatile SlaveSynchronize slaveSync;
    /** Controller mode: the role the RocketMQ Controller gives this broker; null otherwise. */
    private final ControllerRoleManager roleManager;
    private final ControllerApi controllerClient;
    /** ACL 1.0's files, null when {@code aclEnable=false}. */
    private final PlainAclFiles aclFiles;
    private final AuthCounters authCounters = new AuthCounters();
    private final AccessControl accessControl;
    private final TlsSettings tls;
    /** The TLS context of the broker's own connections, null when they are plaintext. */
    private final SslContext clientTls;
    /** A slave's view of its master on the NameServers (addresses, HA protocol); null on a master. */
    private final NameServerMasterLocator masterLocator;
    private final List<RequestExecutor> executors = new ArrayList<>();
    private final ScheduledExecutorService scheduler;
    private final Replication replication;
    private final BrokerCounters counters;
    private final BrokerStats brokerStats;
    private final List<MetricsSources.ExecutorSource> executorSources = new ArrayList<>();
    private final BrokerMetrics metrics;
    private final MetricsService metricsService;
    private final HaMetrics haMetrics;
    private final BrokerRuntimeStats runtimeStats;
    private final NameServerPresence nameServerPresence;
    /** Writes topics.json for topics created by sends, batched and off the send threads. */
    private final MetadataPersister metadataPersister;
    /** Delay levels' delivery: runs while this broker is the master. */
    private final ScheduleMessageService schedule;
    /** POP consumption: its service, long polling and the revive threads (master only). */
    private final PopModule pop;
    /** Transactional messages: pending half messages per topic, decisions and their op markers. */
    private final TransactionMetrics transactionMetrics;
    private final OpMarkerWriter opMarkers;
    private final HalfMessageDecisions transactionDecisions;
    private RequestExecutor endTransactionExecutor;
    /** The back-check of undecided half messages: runs while this broker is a writable master. */
    private final TransactionalMessageCheckService transactionCheck;
    /** What GET/UPDATE_BROKER_CONFIG see and change; the live keys are declared in {@link #registerLiveKeys}. */
    private final RuntimeConfiguration runtimeConfiguration;
    private SlaveReadPolicy slaveReadPolicy;
    /** The gRPC endpoint of the RocketMQ 5.x SDKs; null with grpcServerPort=-1. */
    private GrpcServer grpcServer;
    /** The NameServer state of a broker that is its own NameServer: KV config and its NameServer settings. */
    private KvConfigStore kvConfig;
    private NameServerSettings nameServerSettings;
    /** Request modes per (topic, group) of QUERY_ASSIGNMENT; on a slave, its master's copy. */
    private final MessageRequestModes requestModes;
    private boolean started;
    private boolean shutdown;

    private BrokerController(BrokerConfiguration configuration, MessageStore store, TopicConfigManager topics,
        ConsumerOffsetManager offsets, SubscriptionGroupManager subscriptionGroups, Replication replication) {
        this.replication = replication;
        this.configuration = configuration;
        this.store = store;
        this.topics = topics;
        this.offsets = offsets;
        this.subscriptionGroups = subscriptionGroups;
        topics.brokerPermission().configure(configuration.broker().brokerPermission(), configuration.broker().brokerIP1());
        this.metadataPersister = new MetadataPersister(MetadataPersister.DEFAULT_INTERVAL_MS, ErrorPolicy.resilient());
        topics.persistSendPathChangesWith(metadataPersister);
        subscriptionGroups.persistAutoCreatedGroupsWith(metadataPersister);
        BrokerConfig broker = configuration.broker();
        topics.limitSendPathCreations(new TopicCreationLimiter(broker.autoCreateTopicPerClientPerSecond(), System::nanoTime));
        this.clients = new ClientManager(CHANNEL_EXPIRED_TIMEOUT_MS, System::currentTimeMillis, group ->
            subscriptionGroups.get(group).map(SubscriptionGroupConfig::notifyConsumerIdsChangedEnable).orElse(true));
        this.pullHold = new PullRequestHoldService(store::getMaxOffsetInQueue, System::currentTimeMillis, 1000);
        this.schedule = new ScheduleMessageService(store, configuration.store().delayLevels(),
            new DelayOffsetFile(configDir(configuration)), scheduleSettings(broker), replication::acceptsWrites,
            System::currentTimeMillis);
        // half messages first (RocketMQ parks them before the put hooks run), then the timer step, then delay levels
        // (RocketMQ's handleScheduleMessage order)
        store.addPutTransform(new HalfMessageTransform());
        store.addPutTransform(store.timerMessages().putTransform());
        store.addPutTransform(new DelayLevelTransform(configuration.store().delayLevels()));
        store.addPutTransform(new DueTopicGuard(topics, broker.defaultTopicQueueNums()));
        store.setArrivingListener((topic, queueId, offset, tagsCode, storeTimestamp) -> {
            if (DelayLevels.SCHEDULE_TOPIC.equals(topic)) {
                schedule.onArrival(queueId);
            }
            pullHold.notifyMessageArriving(topic, queueId, offset, tagsCode);
            popArrival(topic);
        });
        this.remotingServer = new NettyRemotingServer(serverConfig(broker.listenPort()));
        this.fastRemotingServer = new NettyRemotingServer(serverConfig(fastListenPort(broker.listenPort())));
        this.tls = tlsSettings(configuration);
        this.clientTls = clientTls(configuration, tls);
        try {
            SslContext serverTls = tls.serverContext();
            remotingServer.setTls(tls.serverMode(), serverTls);
            fastRemotingServer.setTls(tls.serverMode(), serverTls);
            replication.setTls(tls.serverMode(), serverTls, configuration.ha().haTlsEnable() ? tls.clientContext() : null);
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException("TLS cannot start: " + e.getMessage(), e);
        }
        this.aclFiles = configuration.security().aclEnable() ? loadAclFiles() : null;
        try {
            this.accessControl = AccessControl.open(configuration.security(), aclFiles, configDir(configuration),
                authCounters, System::currentTimeMillis);
        } catch (IOException e) {
            throw new AclConfigException("ACL 2.0's users and ACLs cannot be read: " + e.getMessage());
        }
        remotingServer.setGate(accessControl);
        fastRemotingServer.setGate(accessControl);
        remotingServer.onConnectionClosed(clients::connectionClosed);
        fastRemotingServer.onConnectionClosed(clients::connectionClosed);
        this.metrics = new BrokerMetrics(new MetricsSources(store, topics, offsets,
            configuration.store().commitLogDir(), remotingServer::connectionCount, pullHold::heldCount,
            executorSources, () -> replication.role().name(), replication::slaves, () -> {
                Map<String, Long> errors = new LinkedHashMap<>(replication.serviceErrorCounts());
                errors.put(pullHold.name(), pullHold.errorCount());
                errors.put(metadataPersister.name(), metadataPersister.errorCount() + metadataPersister.failures());
                errors.put(transactionCheckService().name(), transactionCheckService().errorCount());
                return errors;
            }));
        this.metricsService = new MetricsService(metrics, broker.brokerName(), configuration.security().metricsBindAddress(),
            broker.metricsPort(), configuration.security().metricsAuthToken());
        metrics.registerAuth(authCounters);
        metrics.registerConnectionCloses(this::connectionCloses);
        metrics.registerDelayLevels(schedule::status);
        metrics.registerTransactions(transactionCounters);
        this.haMetrics = new HaMetrics(replication, store, configuration.ha().haMaxGapNotInSync(), System::currentTimeMillis);
        metrics.registerHa(haMetrics);
        this.pop = new PopModule(store, topics, subscriptionGroups, offsets,
            new ConsumerFilters(broker.enablePropertyFilter()), new InetSocketAddress(broker.brokerIP1(),
            broker.listenPort()), metrics.retryCounts(), replication::acceptsWrites,
            new PopModule.Settings(broker.brokerClusterName(), broker.brokerName(), broker.reviveQueueNum(),
                broker.reviveInterval()), openOrderInfo(configuration));
        metrics.registerPop(pop.counters(), pop::parkedCount);
        schedule.setDeliveryObserver((level, due, stored) -> metrics.recordDeliveryLateness("delay", stored - due));
        this.brokerStats = new BrokerStats(System::currentTimeMillis, configuration.broker().brokerClusterName(),
            topics.systemTopics()::isSystemTopic);
        this.counters = new BrokerCounters(metrics, brokerStats);
        store.setFlushObserver(metrics.flushObserver());
        store.timerMessages().setDeliveryListener((realTopic, dueMillis, storedMillis) ->
            metrics.recordDeliveryLateness("timer", storedMillis - dueMillis));
        this.runtimeStats = new BrokerRuntimeStats(counters::messagesPut, counters::messagesGot,
            System::currentTimeMillis, ZoneId.systemDefault());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("BrokerControllerScheduledThread"));
        this.nameServerPresence = nameServerPresence(configuration, replication, topics);
        this.masterLocator = broker.brokerRole() == BrokerRole.SLAVE && !broker.enableControllerMode() ? new NameServerMasterLocator(nameServerPresence,
            !broker.namesrvAddr().isEmpty(), newClient(), NAMESRV_TIMEOUT_MS) : null;
        if (masterLocator != null) {
            replication.locateMasterWith(masterLocator);
        }
        replication.onFenced(reason -> {
            // a newer master delivers the timers now; this one would deliver them a second time
            store.timerMessages().setDequeueEnabled(false);
            pop.setReviving(false);
            // and asks the producers about the half messages; off this (replication) thread, a scan may be running.
            // In controller mode the broker may be master again later: the check only pauses while it is not writable
            if (!replication.controllerMode()) {
                stopTransactionCheckAfterFencing();
            }
            nameServerPresence.leaveWhenFenced(reason);
        });
        this.transactionMetrics = new TransactionMetrics(configDir(configuration), System::currentTimeMillis);
        metrics.registerRocketMq(new RocketMqMetrics.Sources(clients, metrics.retryCounts(), transactionCounters,
                transactionMetrics::pendingByTopic, topics.brokerPermission()::permission),
            broker.brokerClusterName(), broker.brokerName(), broker.metricsLabels());
        this.requestModes = openRequestModes(configuration);
        this.slaveSync = broker.brokerRole() == BrokerRole.SLAVE && !broker.enableControllerMode()
            ? newSlaveSynchronize() : null;
        this.opMarkers = new OpMarkerWriter(store, new InetSocketAddress(broker.brokerIP1(), broker.listenPort()),
            broker.transactionOpMsgMaxSize(), broker.transactionOpBatchInterval(), System::currentTimeMillis);
        this.transactionDecisions = new HalfMessageDecisions(store, opMarkers, () -> offsets.queryOffset(
            TransactionalMessages.SCAN_GROUP, TransactionalMessages.HALF_TOPIC, TransactionalMessages.HALF_QUEUE_ID),
            System::currentTimeMillis, HalfMessageDecisions.DEFAULT_MAX_TRANSACTIONS);
        this.transactionCheck = new TransactionalMessageCheckService(store, topics, offsets, transactionDecisions,
            clients.producers(), transactionCounters, transactionMetrics::givenUp, broker.brokerName(),
            new InetSocketAddress(broker.brokerIP1(), broker.listenPort()), new CheckSettings(broker.transactionTimeOut(),
                broker.transactionCheckInterval(), broker.transactionCheckMax(), configuration.store().fileReservedTime()),
            replication::acceptsWrites);
        if (broker.enableControllerMode()) {
            this.controllerClient = newControllerClient(broker);
            this.roleManager = newRoleManager(broker, controllerClient);
        } else {
            this.controllerClient = null;
            this.roleManager = null;
        }
        if (roleManager != null) {
            haMetrics.followController(roleManager::elections, roleManager::timeWithoutMasterMs,
                () -> roleManager.role() == ControllerRoleManager.Role.MASTER ? roleManager.syncStateSet().brokerIds().size() : 0);
        }
        this.runtimeConfiguration = new RuntimeConfiguration(configuration, configuration.file()
            .orElse(configDir(configuration).resolve("broker.properties")), System::currentTimeMillis);
        registerProcessors(broker);
        registerLiveKeys();
    }

    /**
     * The keys UPDATE_BROKER_CONFIG may change while the broker runs: each applier makes the code path that reads
     * the key use the new value at once. Every other key needs a restart and an update naming it is refused.
     */
    private void registerLiveKeys() {
        runtimeConfiguration.applyLive("autoCreateTopicEnable", updated -> {
            try {
                if (topics.setAutoCreateTopicEnable(updated.broker().autoCreateTopicEnable(),
                    updated.broker().defaultTopicQueueNums())) {
                    nameServerPresence.registerTopicChanges();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create TBW102 for autoCreateTopicEnable=true", e);
            }
        });
        runtimeConfiguration.applyLive("brokerPermission", updated -> {
            topics.brokerPermission().set(updated.broker().brokerPermission());
            try {
                topics.bumpDataVersion();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot persist the topic table's new data version", e);
            }
            // registered at once (RocketMQ forces it), so the NameServers' routes show the new perms now
            nameServerPresence.registerTopicChanges();
        });
        // retention's hours and disk ratio are read by the clean service on each round; fileReservedTime is not live:
        // the transactional back-check reads it too, at start
        runtimeConfiguration.applyLive("deleteWhen", updated -> store.updateRetention(updated.store()));
        runtimeConfiguration.applyLive("diskMaxUsedSpaceRatio", updated -> store.updateRetention(updated.store()));
        runtimeConfiguration.applyLive("autoCreateSubscriptionGroup",
            updated -> subscriptionGroups.setAutoCreateSubscriptionGroup(updated.broker().autoCreateSubscriptionGroup()));
        runtimeConfiguration.applyLive("slaveReadEnable",
            updated -> slaveReadPolicy.setSlaveReadEnable(updated.broker().slaveReadEnable()));
    }

    private ControllerApi newControllerClient(BrokerConfig broker) {
        String addresses = String.join(";", broker.controllerAddr().stream().map(a -> a.host() + ":" + a.port()).toList());
        return new RemotingControllerClient(addresses, NettyClientConfig.defaults(), clientTls,
            RemotingControllerClient.DEFAULT_REQUEST_TIMEOUT_MS, broker.sendHeartbeatTimeoutMillis(),
            RemotingControllerClient.DEFAULT_PROBE_INTERVAL_MS);
    }

    private ControllerRoleManager newRoleManager(BrokerConfig broker, ControllerApi controller) {
        String self = broker.brokerIP1() + ":" + broker.listenPort();
        ControllerRegistration registration = new ControllerRegistration(controller,
            new BrokerIdentityFile(broker.storePathBrokerIdentity()), broker.brokerClusterName(), broker.brokerName(), self,
            System::currentTimeMillis);
        ControllerRoleManager.Settings settings = new ControllerRoleManager.Settings(broker.brokerClusterName(),
            broker.brokerName(), self, broker.brokerHeartbeatInterval(), broker.controllerHeartBeatTimeoutMills(),
            broker.brokerElectionPriority(), broker.syncBrokerMetadataPeriod(), broker.checkSyncStateSetPeriod(),
            broker.syncControllerMetadataPeriod(), SyncStateSetRule.DEFAULT_MAX_TIME_NOT_CATCHUP_MS);
        return new ControllerRoleManager(controller, registration::register, settings, replication,
            replication.epochFile(), new ControllerRoles(), System::currentTimeMillis);
    }

    /**
     * What a role change means for this broker's services, as RocketMQ's {@code changeToMaster}/{@code changeToSlave}:
     * a master delivers delay levels and timers, checks half messages and registers as brokerId 0; a slave copies its
     * master's metadata (every 3 s, in full once 10 s passed) and registers with its controller id. The topic table's
     * version carries the epoch, so that the NameServers prefer the newer master.
     */
    private final class ControllerRoles implements ControllerRoleManager.RoleListener {
        @Override
        public void beforeMaster(Optional<String> previousMaster) {
            SlaveSynchronize sync = slaveSync;
            if (sync != null) {
                sync.shutdown();
            }
            // what the old master changed since the last sync: topics, offsets, groups, delay offsets, timer checkpoint
            previousMaster.ifPresent(master -> (sync != null ? sync : newSlaveSynchronize()).syncOnce(master));
            slaveSync = null;
        }

        @Override
        public void becameMaster(long epoch) {
            SlaveSynchronize sync = slaveSync;
            if (sync != null) {
                sync.shutdown();
                slaveSync = null;
            }
            store.timerMessages().setDequeueEnabled(true);
            pop.setReviving(store.timerMessages().enabled());
            transactionDecisions.beginDeciding();
            // topics the old master created after this broker's last metadata sync (which the last sync in
            // beforeMaster cannot fetch from a dead master): their replicated messages are here, so they are routed
            try {
                topics.recoverTopicsFromQueues(store.queueIdsByTopic());
            } catch (IOException e) {
                log.error("persisting the topics found in the store as master of epoch {} failed: {}", epoch,
                    e.toString());
            }
            startStateVersion(epoch);
            // producers wait for this registration (their next route poll finds brokerId 0 here): it goes first,
            // the services that deliver what was already stored start after it
            nameServerPresence.registerAgain();
            try {
                schedule.start();
            } catch (IOException e) {
                log.error("starting delay-level delivery as master of epoch {} failed: {}", epoch, e.toString());
            }
            transactionCheck.start();
        }

        @Override
        public void syncStateSetChanged(ControllerApi.SyncStateSet set) {
            // the write path and the confirmOffset count on the set the Controller holds
            replication.adoptSyncStateSet(set.brokerIds());
        }

        @Override
        public void becameSlave(long epoch, String masterAddress) {
            store.timerMessages().setDequeueEnabled(false);
            pop.setReviving(false);
            schedule.shutdown();
            startStateVersion(epoch);
            SlaveSynchronize previous = slaveSync;
            if (previous != null) {
                previous.shutdown();
            }
            SlaveSynchronize sync = newSlaveSynchronize();
            slaveSync = sync;
            sync.start();
            nameServerPresence.registerAgain();
        }

        @Override
        public Optional<InetSocketAddress> masterHaAddress(String masterAddress) {
            Optional<String> ha = nameServerPresence.masterAddr().filter(masterAddress::equals)
                .flatMap(same -> nameServerPresence.masterHaServerAddr());
            if (ha.isEmpty()) {
                // the master may have registered after this slave: ask again
                nameServerPresence.registerNow();
                return Optional.empty();
            }
            int colon = ha.get().lastIndexOf(':');
            try {
                return Optional.of(new InetSocketAddress(ha.get().substring(0, colon),
                    Integer.parseInt(ha.get().substring(colon + 1))));
            } catch (RuntimeException e) {
                log.error("the NameServers name the master's HA address '{}', which is not host:port", ha.get());
                return Optional.empty();
            }
        }

        private void startStateVersion(long epoch) {
            try {
                topics.startStateVersion(epoch);
            } catch (IOException e) {
                log.error("persisting the topic table's version of epoch {} failed: {}", epoch, e.toString());
            }
        }
    }

    /** Stops the back-check on the scheduler's thread: the fencing thread must not wait for a scan to end. */
    private void stopTransactionCheckAfterFencing() {
        try {
            scheduler.execute(() -> step("stopping the transaction back-check", transactionCheck::shutdown));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the broker is shutting down, which stops the back-check itself
        }
    }

    private static ScheduleSettings scheduleSettings(BrokerConfig broker) {
        return new ScheduleSettings(broker.flushDelayOffsetInterval(), broker.delayOffsetUpdateVersionStep(),
            broker.scheduleAsyncDeliverMaxPendingLimit());
    }

    private NettyServerConfig serverConfig(int port) {
        BrokerConfig broker = configuration.broker();
        NettyServerConfig defaults = NettyServerConfig.defaults(port);
        return new NettyServerConfig(broker.bindAddress(), port, defaults.selectorThreads(),
            maxFrameLength(defaults.maxFrameLength(), configuration.store().maxMessageSize()),
            defaults.channelMaxIdleSeconds(), defaults.shutdownDrainTimeoutMs(), defaults.useEpoll())
            .withBounds(Math.max(broker.remotingPartialFrameBudgetBytes(), maxFrameLength(defaults.maxFrameLength(),
                    configuration.store().maxMessageSize())), broker.remotingFrameCompleteTimeoutMillis(),
                Math.min(waterMark(broker.writeBufferLowWaterMark(), NettyServerConfig.DEFAULT_WRITE_BUFFER_LOW_WATER_MARK),
                    waterMark(broker.writeBufferHighWaterMark(), NettyServerConfig.DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK)),
                waterMark(broker.writeBufferHighWaterMark(), NettyServerConfig.DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK),
                broker.remotingUnwritableCloseMillis());
    }

    /** RocketMQ's rule: a water mark of 0 leaves Netty's default. */
    private static int waterMark(int configured, int nettyDefault) {
        return configured > 0 ? configured : nettyDefault;
    }

    /** Connections both remoting servers closed, by reason label. */
    private Map<String, Long> connectionCloses() {
        Map<String, Long> closes = new LinkedHashMap<>();
        for (CloseReason reason : CloseReason.values()) {
            closes.put(reason.label(), remotingServer.closedConnections(reason) + fastRemotingServer.closedConnections(reason));
        }
        return closes;
    }

    /** The topics as registered with the NameServers: perms masked by brokerPermission, as RocketMQ registers them. */
    private static TopicConfigSerializeWrapper registeredTopics(TopicConfigManager topics) {
        TopicConfigSerializeWrapper table = TopicAdminProcessor.topicTable(topics);
        BrokerPermission permission = topics.brokerPermission();
        Map<String, TopicConfig> masked = new LinkedHashMap<>();
        table.topicConfigTable().forEach((name, config) ->
            masked.put(name, config.withPerm(permission.registeredPerm(config.perm()))));
        return new TopicConfigSerializeWrapper(masked, table.dataVersion());
    }

    /** RocketMQ's fast (VIP) port: listenPort − 2 (0, any free port, below 2). */
    static int fastListenPort(int listenPort) {
        return Math.max(0, listenPort - 2);
    }

    /**
     * The master's metadata, polled from the master's address as the NameServers answer this slave's registration,
     * or, without NameServers, as the master named itself in the HA handshake.
     */
    private SlaveSynchronize newSlaveSynchronize() {
        BrokerConfig broker = configuration.broker();
        String self = broker.brokerIP1() + ":" + broker.listenPort();
        Supplier<Optional<String>> masterAddress = broker.enableControllerMode()
            ? () -> Optional.of(roleManager.masterAddress()).filter(address -> !address.isEmpty() && !address.equals(self))
            : () -> nameServerPresence.masterAddr()
            .or(() -> Optional.ofNullable(replication.client()).map(ReplicaClient::lastMasterBrokerAddr))
            .filter(address -> !address.isEmpty() && !address.equals(self));
        return SlaveSynchronize.of(topics, offsets, subscriptionGroups, configDir(configuration), store.timerMessages(),
            transactionMetrics, requestModes, masterAddress,
            () -> replication.role() == BrokerRole.SLAVE, this::newClient);
    }

    private static Path configDir(BrokerConfiguration configuration) {
        return configuration.store().rootDir().resolve("config");
    }

    /** The broker as its NameServers see it: registered with the identity and topics of this broker. */
    private NameServerPresence nameServerPresence(BrokerConfiguration configuration, Replication replication,
                                                  TopicConfigManager topics) {
        BrokerConfig broker = configuration.broker();
        NameServers nameServers = new NameServers(
            broker.namesrvAddr().stream().map(a -> a.host() + ":" + a.port()).toList(), broker.registerNameServerPeriod(),
            NAMESRV_TIMEOUT_MS);
        BrokerRegistration self = new BrokerRegistration(broker.brokerClusterName(), broker.brokerName(),
            broker.brokerId(), broker.brokerIP1() + ":" + broker.listenPort(),
            broker.brokerIP2() + ":" + configuration.ha().haListenPort());
        return new NameServerPresence(nameServers, self, ReplicationView.of(replication),
            () -> registeredTopics(topics), () -> topics.dataVersion().counter(),
            this::newClient);
    }

    /**
     * Opens the store (recovering it) and the broker's metadata files; nothing is served until {@link #start()}.
     *
     * @throws IOException when the store or a metadata file cannot be opened or is corrupt beyond its backup
     */
    public static BrokerController create(BrokerConfiguration configured) throws IOException {
        BrokerConfiguration configuration = withConcretePorts(configured);
        Path configDir = configDir(configuration);
        BrokerConfig broker = configuration.broker();
        TopicConfigManager topics = TopicConfigManager.open(configDir, new SystemTopics.Settings(
            broker.brokerClusterName(), broker.brokerName(), broker.autoCreateTopicEnable(), broker.defaultTopicQueueNums(),
            broker.clusterTopicEnable(), broker.brokerTopicEnable(), broker.traceTopicEnable(), broker.msgTraceTopicName()));
        ConsumerOffsetManager offsets = ConsumerOffsetManager.open(configDir);
        SubscriptionGroupManager subscriptionGroups = SubscriptionGroupManager.open(configDir,
            configuration.broker().autoCreateSubscriptionGroup());
        MessageStore store = MessageStore.open(configuration.store());
        try {
            return new BrokerController(configuration, store, topics, offsets, subscriptionGroups,
                replication(configuration, store));
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * {@code listenPort=0} (and {@code haListenPort=0}, {@code grpcServerPort=0}) ask for free ports. They are picked here, before
     * anything is built, because the port is part of the broker's identity: the store host inside
     * every offset message id, the route address and the HA peer address all carry it.
     */
    static BrokerConfiguration withConcretePorts(BrokerConfiguration configuration) throws IOException {
        BrokerConfig broker = configuration.broker();
        boolean listenFree = broker.listenPort() == 0;
        boolean haFree = configuration.ha().haListenPort() == 0;
        boolean grpcFree = broker.grpcServerPort() == 0;
        if (!listenFree && !haFree && !grpcFree) {
            return configuration;
        }
        Map<String, String> properties = new LinkedHashMap<>(configuration.asProperties());
        InetAddress bind = InetAddress.getByName(broker.bindAddress());
        // The sockets stay open until all ports are known, so the ports differ.
        try (ServerSocket listen = freeListenPort(bind); ServerSocket ha = new ServerSocket(0, 1, bind);
             ServerSocket grpc = new ServerSocket(0, 1, bind)) {
            if (listenFree) {
                properties.put("listenPort", Integer.toString(listen.getLocalPort()));
            }
            if (haFree) {
                properties.put("haListenPort", Integer.toString(ha.getLocalPort()));
            }
            if (grpcFree) {
                properties.put("grpcServerPort", Integer.toString(grpc.getLocalPort()));
            }
        }
        try {
            return BrokerConfiguration.of(properties).withFileOf(configuration);
        } catch (ConfigException e) {
            throw new IllegalStateException("the configuration with free ports picked is invalid: " + e.getMessage(), e);
        }
    }

    /** A free port whose fast port (port − 2) is free too; the fast port's socket is closed again at once. */
    private static ServerSocket freeListenPort(InetAddress bind) throws IOException {
        for (int attempt = 0; ; attempt++) {
            ServerSocket listen = new ServerSocket(0, 1, bind);
            int fast = fastListenPort(listen.getLocalPort());
            try (ServerSocket probe = new ServerSocket(fast, 1, bind)) {
                return listen;
            } catch (IOException taken) {
                listen.close();
                if (attempt == 100) {
                    throw new IOException("found no free port whose port - 2 is free too", taken);
                }
            }
        }
    }

    /**
     * The largest request frame: RocketMQ's 16 MiB, or more when {@code maxMessageSize} needs it, so that
     * a message within the limit is never cut off by the frame decoder (a closed connection) and one over
     * it gets MESSAGE_ILLEGAL. The headroom covers the header, properties included (at most 32 KiB).
     */
    static int maxFrameLength(int defaultMaxFrameLength, int maxMessageSize) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(defaultMaxFrameLength, (long) maxMessageSize + FRAME_HEADROOM));
    }

    /** The broker's replication endpoint for its {@code brokerRole} (HA port, slave's master address, timeouts). */
    static Replication replication(BrokerConfiguration configuration, MessageStore store) throws IOException {
        BrokerConfig broker = configuration.broker();
        if (broker.enableControllerMode()) {
            return Replication.controlled(store, EpochFile.open(configuration.store().rootDir()), configuration.ha(),
                new Peer(-1, broker.brokerIP1() + ":" + broker.listenPort()));
        }
        InetSocketAddress masterAddress = broker.haMasterAddress()
            .map(hp -> new InetSocketAddress(hp.host(), hp.port())).orElse(null);
        Peer self = new Peer(broker.brokerId(), broker.brokerIP1() + ":" + broker.listenPort());
        return new Replication(store, EpochFile.open(configuration.store().rootDir(),
            broker.storePathEpochFile()), configuration.ha(), self,
            broker.brokerRole(), masterAddress);
    }

    /** Wakes the pops waiting for a dispatched message of {@code topic} (dispatch starts after construction). */
    private void popArrival(String topic) {
        pop.onArrival(topic);
    }

    private void registerProcessors(BrokerConfig broker) {
        RequestExecutor send = executor("SendMessageThread_", broker.sendMessageThreadPoolNums(),
            broker.sendThreadPoolQueueCapacity(), broker.waitTimeMillsInSendQueue());
        RequestExecutor pull = executor("PullMessageThread_", broker.pullMessageThreadPoolNums(),
            broker.pullThreadPoolQueueCapacity(), broker.waitTimeMillsInPullQueue());
        executorSources.add(new MetricsSources.ExecutorSource("send", send::queueSize, send::systemBusyCount));
        executorSources.add(new MetricsSources.ExecutorSource("pull", pull::queueSize, pull::systemBusyCount));
        RequestExecutor clientManage = executor("ClientManageThread_", 4, 10_000, 0);
        RequestExecutor consumerManage = executor("ConsumerManageThread_", 4, 10_000, 0);
        RequestExecutor route = executor("RouteThread_", 2, 10_000, 0);

        StoreHost storeHost = new StoreHost(broker.brokerClusterName(), broker.brokerName(),
            new InetSocketAddress(broker.brokerIP1(), broker.listenPort()));
        QueueLockManager queueLocks = new QueueLockManager(60_000, System::currentTimeMillis);
        SendMessageProcessor sendProcessor = new SendMessageProcessor(storeHost, replication::acceptsWrites,
            configuration.store().maxMessageSize(), store, topics, counters, subscriptionGroups, queueLocks,
            metrics.retryCounts(), broker.rejectTransactionMessage(), realTopic -> {
                transactionCounters.prepared(realTopic);
                transactionMetrics.halfStored(realTopic);
            });
        register(send, sendProcessor, RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE);
        // never blocks a send thread: the push to the requester and the store complete on their own threads
        register(send, new ReplyMessageProcessor(storeHost, replication::acceptsWrites,
                configuration.store().maxMessageSize(), store, topics, clients, broker.storeReplyMessageEnable(), counters),
            RequestCode.SEND_REPLY_MESSAGE, RequestCode.SEND_REPLY_MESSAGE_V2);
        ConsumerFilters filters = new ConsumerFilters(broker.enablePropertyFilter());
        slaveReadPolicy = new SlaveReadPolicy(broker.slaveReadEnable(), broker.offsetCheckInSlave(),
            () -> replication.role() == BrokerRole.SLAVE, replication::masterStreaming, replication::isSlaveInSync);
        register(pull, new PullMessageProcessor(store, topics, new ConsumerGroups(subscriptionGroups, clients, offsets),
                new LongPolling(pullHold, MAX_SUSPEND_MS), slaveReadPolicy, counters, filters),
            RequestCode.PULL_MESSAGE, RequestCode.LITE_PULL_MESSAGE);
        // POP: pops and notifications on the pull pool, ACKs and invisible-time changes on their own (RocketMQ's pools)
        PopRemotingProcessor popProcessor = new PopRemotingProcessor(pop.service());
        register(pull, popProcessor, PopRemotingProcessor.POP_MESSAGE, PopRemotingProcessor.NOTIFICATION,
            PopRemotingProcessor.POLLING_INFO, PopRemotingProcessor.PEEK_MESSAGE);
        register(executor("AckMessageThread_", 3, 100_000, 0), popProcessor, PopRemotingProcessor.ACK_MESSAGE,
            PopRemotingProcessor.BATCH_ACK_MESSAGE, PopRemotingProcessor.CHANGE_MESSAGE_INVISIBLETIME);
        register(send, new ConsumerSendMsgBackProcessor(store, topics, subscriptionGroups, storeHost.address(),
            replication::acceptsWrites, metrics.retryCounts(), brokerStats::sentBack),
            RequestCode.CONSUMER_SEND_MSG_BACK);
        register(clientManage, new ClientManageProcessor(clients, queueLocks,
                subscriptionGroups, topics, filters),
            RequestCode.HEART_BEAT, RequestCode.UNREGISTER_CLIENT, RequestCode.CHECK_CLIENT_CONFIG,
            RequestCode.GET_CONSUMER_LIST_BY_GROUP, RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ);
        register(consumerManage, new ConsumerOffsetProcessor(store, topics, offsets), RequestCode.QUERY_CONSUMER_OFFSET,
            RequestCode.UPDATE_CONSUMER_OFFSET, RequestCode.GET_MIN_OFFSET, RequestCode.GET_MAX_OFFSET,
            RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, RequestCode.GET_EARLIEST_MSG_STORETIME);
        endTransactionExecutor = executor("EndTransactionThread_", broker.endTransactionThreadPoolNums(),
            broker.endTransactionPoolQueueCapacity(), broker.waitTimeMillsInTransactionQueue());
        executorSources.add(new MetricsSources.ExecutorSource("endTransaction", endTransactionExecutor::queueSize,
            endTransactionExecutor::systemBusyCount));
        EndTransactionProcessor endTransactionProcessor = new EndTransactionProcessor(store, replication::acceptsWrites,
            broker.transactionTimeOut(), transactionDecisions, transactionCounters, transactionMetrics,
            System::currentTimeMillis);
        register(endTransactionExecutor, endTransactionProcessor, RequestCode.END_TRANSACTION);
        grpcServer = grpcServer(broker, sendProcessor, endTransactionProcessor, storeHost);
        RouteBodies.BrokerIdentity identity = new RouteBodies.BrokerIdentity(broker.brokerClusterName(),
            broker.brokerName(), broker.brokerId(), broker.brokerIP1() + ":" + broker.listenPort());
        openNameServerState();
        register(route, new RouteProcessor(identity, replication::brokerAddrs, topics, topic -> nameServerSettings
                .orderMessageEnable() ? kvConfig.get(KvConfigStore.ORDER_TOPIC_CONFIG, topic) : Optional.empty()),
            RequestCode.GET_ROUTEINFO_BY_TOPIC,
            RequestCode.GET_BROKER_CLUSTER_INFO);
        registerAdminProcessors(broker, send, pull);
    }

    /**
     * SET_MESSAGE_REQUEST_MODE and QUERY_ASSIGNMENT on their own executor (RocketMQ's load-balance pool): an
     * assignment may wait for a NameServer's route. The route is the broker's own topic table when it is its own
     * NameServer, else the NameServers' route of the topic.
     */
    private void registerAssignmentProcessor(BrokerConfig broker) {
        RequestExecutor loadBalance = executor("LoadBalanceProcessorThread_", 2, 10_000, 0);
        List<String> nameServers = broker.namesrvAddr().stream().map(a -> a.host() + ":" + a.port()).toList();
        TopicQueues queues = nameServers.isEmpty() ? new LocalTopicQueues(broker.brokerName(), topics)
            : new NameServerTopicQueues(nameServers, this::newClient, NAMESRV_TIMEOUT_MS, System::currentTimeMillis);
        register(loadBalance, new QueryAssignmentProcessor(requestModes, queues, clients, topics, subscriptionGroups,
                new QueryAssignmentProcessor.Defaults(broker.defaultMessageRequestMode(), broker.defaultPopShareQueueNum()),
                () -> replication.role() == BrokerRole.SLAVE),
            RequestCode.QUERY_ASSIGNMENT, RequestCode.SET_MESSAGE_REQUEST_MODE);
    }

    private static OrderInfoTable openOrderInfo(BrokerConfiguration configuration) {
        try {
            return OrderInfoTable.open(configDir(configuration));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static MessageRequestModes openRequestModes(BrokerConfiguration configuration) {
        try {
            return MessageRequestModes.open(configDir(configuration));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The gRPC endpoint: sends, transactions and dead-lettering run through the remoting processors; null when turned off. */
    private GrpcServer grpcServer(BrokerConfig broker, SendMessageProcessor send, EndTransactionProcessor endTransaction,
                                  StoreHost storeHost) {
        if (broker.grpcServerPort() < 0) {
            return null;
        }
        GrpcServer server = new GrpcServer(new GrpcServer.Wiring(broker.brokerName(), broker.brokerId(), broker.brokerIP1(),
            broker.bindAddress(), broker.grpcServerPort(), broker.grpcAdvertisedAddress(), broker.listenPort(), topics::get,
            topics.brokerPermission()::routePerm, subscriptionGroups::get, clients, store, send, endTransaction,
            configuration.store().maxMessageSize(), tls, accessControl, pop.service(),
            new ConsumerSendMsgBackProcessor(store, topics, subscriptionGroups, storeHost.address(),
                replication::acceptsWrites, metrics.retryCounts(), brokerStats::sentBack),
            broker.defaultInvisibleTimeMills(), metrics::messagesOut));
        metrics.registerGrpc(server.counters());
        return server;
    }

    /** Opens the self-NameServer files: {@code config/kvConfig.json} and {@code config/namesrv.properties}. */
    private void openNameServerState() {
        Path dir = configDir(configuration);
        try {
            kvConfig = KvConfigStore.open(dir.resolve("kvConfig.json"));
            nameServerSettings = NameServerSettings.open(dir.resolve("namesrv.properties"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ConfigException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private void registerAdminProcessors(BrokerConfig broker, RequestExecutor send, RequestExecutor pull) {
        RequestExecutor admin = executor("AdminBrokerThread_", 1, 10_000, 0);
        RequestExecutor query = executor("QueryMessageThread_", 2, 20_000, 0);
        String brokerName = broker.brokerName();
        register(admin, new TopicAdminProcessor(brokerName, topics, offsets, store,
                nameServerPresence::registerTopicChanges),
            RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.DELETE_TOPIC_IN_BROKER, RequestCode.GET_ALL_TOPIC_CONFIG,
            RequestCode.GET_TOPIC_CONFIG, RequestCode.GET_TOPIC_STATS_INFO);
        ConsumerAdminProcessor consumerAdmin = new ConsumerAdminProcessor(brokerName, topics, offsets, clients, store,
            brokerStats.groupGets());
        register(admin, consumerAdmin,
            RequestCode.GET_CONSUME_STATS, RequestCode.GET_CONSUMER_CONNECTION_LIST, RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
            RequestCode.GET_CONSUMER_RUNNING_INFO, RequestCode.CONSUME_MESSAGE_DIRECTLY);
        registerStatsAndQueryProcessors(admin, broker, consumerAdmin);
        register(admin, new SubscriptionGroupAdminProcessor(subscriptionGroups, offsets),
            RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
            RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, RequestCode.DELETE_SUBSCRIPTIONGROUP,
            RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN);
        register(admin, new NameServerTopicProcessor(broker.brokerClusterName(), topics),
            RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, RequestCode.GET_TOPICS_BY_CLUSTER,
            RequestCode.DELETE_TOPIC_IN_NAMESRV);
        register(admin, new PromoteToMasterProcessor(replication, nameServerPresence::anotherPromotedMaster,
                this::afterPromotion),
            PromoteToMasterProcessor.PROMOTE_TO_MASTER);
        register(admin, new SlaveMetadataProcessor(offsets, requestModes, schedule::delayOffsetBody),
            RequestCode.GET_ALL_CONSUMER_OFFSET, RequestCode.GET_ALL_DELAY_OFFSET, RequestCode.GET_ALL_MESSAGE_REQUEST_MODE);
        register(admin, new BrokerRuntimeInfoProcessor(store, runtimeStats, configuration.store().rootDir(),
            replication::acceptsWrites, replication::runtimeInfo, List.of(
                new BrokerRuntimeInfoProcessor.ExecutorQueue("send", send::queueSize, broker.sendThreadPoolQueueCapacity(),
                    send::headWaitMillis),
                new BrokerRuntimeInfoProcessor.ExecutorQueue("pull", pull::queueSize, broker.pullThreadPoolQueueCapacity(),
                    pull::headWaitMillis),
                new BrokerRuntimeInfoProcessor.ExecutorQueue("query", query::queueSize, 20_000, query::headWaitMillis)),
                () -> withEndTransactionQueue(schedule.runtimeInfo(), broker), store.timerMessages()),
            RequestCode.GET_BROKER_RUNTIME_INFO);
        register(admin, new HaAdminProcessor(broker.brokerClusterName(), brokerName,
                () -> replication.role() != BrokerRole.SLAVE ? 0
                : replication.controllerMode() ? replication.self().brokerId() : broker.brokerId(), replication, store, haMetrics),
            RequestCode.GET_BROKER_EPOCH_CACHE, RequestCode.GET_BROKER_HA_STATUS);
        if (roleManager != null) {
            RequestExecutor controllerPushes = executor("BrokerControllerNotifyThread_", 1, 1_000, 0);
            // the Controller does not sign its pushes: with access control on, a push only makes the broker ask it
            register(controllerPushes, new RoleChangeNotifyProcessor(accessControl.enabled()
                    ? info -> roleManager.askControllerNow("a pushed role change") : roleManager::onRoleChangeNotified),
                RoleChangeNotifyProcessor.NOTIFY_BROKER_ROLE_CHANGED);
        }
        register(admin, new TransactionMetricsProcessor(transactionMetrics), TransactionMetricsProcessor.GET_TRANSACTION_METRICS);
        registerAssignmentProcessor(broker);
        register(admin, new HAProtocolsProcessor(), HAProtocolsProcessor.GET_HA_PROTOCOLS);
        register(admin, new TimerAdminProcessor(store.timerMessages()), RequestCode.GET_TIMER_CHECK_POINT,
            RequestCode.GET_TIMER_METRICS);
        register(admin, new ProducerAdminProcessor(clients.producers()), RequestCode.GET_PRODUCER_CONNECTION_LIST,
            RequestCode.GET_ALL_PRODUCER_INFO);
        register(admin, new ResumeCheckHalfMessageProcessor(store, transactionDecisions,
                new InetSocketAddress(broker.brokerIP1(), broker.listenPort()), replication::acceptsWrites),
            RequestCode.RESUME_CHECK_HALF_MESSAGE);
        register(query, new QueryMessageProcessor(store), RequestCode.QUERY_MESSAGE, RequestCode.VIEW_MESSAGE_BY_ID);
        register(admin, new StoreMaintenanceProcessor(store, topics, clients), RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE,
            RequestCode.DELETE_EXPIRED_COMMITLOG, RequestCode.CLEAN_UNUSED_TOPIC, RequestCode.QUERY_CONSUME_QUEUE,
            RequestCode.SET_COMMITLOG_READ_MODE, RequestCode.RESET_MASTER_FLUSH_OFFSET);
        register(admin, new BrokerConfigProcessor(runtimeConfiguration), RequestCode.GET_BROKER_CONFIG,
            RequestCode.UPDATE_BROKER_CONFIG);
        register(admin, new NameServerAdminProcessor(brokerName, topics, nameServerSettings, kvConfig),
            RequestCode.WIPE_WRITE_PERM_OF_BROKER, RequestCode.ADD_WRITE_PERM_OF_BROKER, RequestCode.GET_NAMESRV_CONFIG,
            RequestCode.UPDATE_NAMESRV_CONFIG, RequestCode.PUT_KV_CONFIG, RequestCode.GET_KV_CONFIG,
            RequestCode.DELETE_KV_CONFIG, RequestCode.GET_KVLIST_BY_NAMESPACE);
        // offset resets, consumer status, group offset copies and corrections
        register(admin, new OffsetResetProcessor(brokerName, broker.useServerSideResetOffset(),
            () -> replication.role() == BrokerRole.SLAVE, topics, subscriptionGroups, offsets, clients, store,
            pullHold::wakeQueue), RequestCode.INVOKE_BROKER_TO_RESET_OFFSET);
        register(admin, new ConsumerStatusProcessor(clients), RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS);
        register(admin, new GroupOffsetsProcessor(topics, offsets, clients, store), RequestCode.CLONE_GROUP_OFFSET,
            RequestCode.QUERY_CORRECTION_OFFSET);
        register(admin, new AclAdminProcessor(aclFiles, broker.brokerClusterName(), brokerName,
                broker.brokerIP1() + ":" + broker.listenPort()), RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
            RequestCode.DELETE_ACL_CONFIG, RequestCode.GET_BROKER_CLUSTER_ACL_INFO, RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG);
        register(admin, accessControl.authAdminProcessor(), AuthAdminProcessor.AUTH_CREATE_USER,
            AuthAdminProcessor.AUTH_UPDATE_USER, AuthAdminProcessor.AUTH_DELETE_USER, AuthAdminProcessor.AUTH_GET_USER,
            AuthAdminProcessor.AUTH_LIST_USER, AuthAdminProcessor.AUTH_CREATE_ACL, AuthAdminProcessor.AUTH_UPDATE_ACL,
            AuthAdminProcessor.AUTH_DELETE_ACL, AuthAdminProcessor.AUTH_GET_ACL, AuthAdminProcessor.AUTH_LIST_ACL);
    }

    /** RocketMQ's stats (315), the broker's consume stats (317), the group queries (303, 343, 345) and 305. */
    private void registerStatsAndQueryProcessors(RequestExecutor admin, BrokerConfig broker,
        ConsumerAdminProcessor consumerAdmin) {
        String brokerAddr = broker.brokerIP1() + ":" + broker.listenPort();
        register(admin, new BrokerStatsProcessor(brokerStats), RequestCode.VIEW_BROKER_STATS_DATA);
        register(admin, BrokerConsumeStatsProcessor.of(brokerAddr, topics, subscriptionGroups, consumerAdmin),
            RequestCode.GET_BROKER_CONSUME_STATS);
        register(admin, new ConsumerQueryProcessor(broker.brokerName(), brokerAddr, topics, offsets, clients, store,
                System::currentTimeMillis, ZoneId.systemDefault()),
            RequestCode.QUERY_TOPICS_BY_CONSUMER, RequestCode.QUERY_SUBSCRIPTION_BY_CONSUMER,
            RequestCode.QUERY_CONSUME_TIME_SPAN);
        register(admin, new SystemTopicListProcessor(topics), RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER);
    }

    private static TlsSettings tlsSettings(BrokerConfiguration configuration) {
        try {
            return TlsSettings.resolve(configuration.security().tlsProperties());
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("TLS settings: " + e.getMessage(), e);
        }
    }

    /** The broker's own connections speak TLS with useTLS, tls.enable, or a server that enforces TLS (RocketMQ's rule). */
    private static SslContext clientTls(BrokerConfiguration configuration, TlsSettings tls) {
        if (!configuration.security().useTls() && !tls.clientEnabled() && tls.serverMode() != TlsMode.ENFORCING) {
            return null;
        }
        try {
            return tls.clientContext();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException("TLS of the broker's own connections cannot start: " + e.getMessage(), e);
        }
    }

    /** A remoting client for the broker's own requests, with TLS when the broker's connections use it. */
    private NettyRemotingClient newClient() {
        NettyRemotingClient client = new NettyRemotingClient(NettyClientConfig.defaults(), clientTls);
        configuration.security().innerClientCredentials().ifPresent(c ->
            client.beforeSend(new RequestSigner(c.accessKey(), c.secretKey())));
        return client;
    }

    /**
     * ACL 1.0's files, where RocketMQ 5.2.0 looks for them: {@code <home>/conf/acl/**.yml} and the default file
     * {@code <home>/} + system property {@code rocketmq.acl.plain.file} ({@code conf/plain_acl.yml}); home is system
     * property {@code rocketmq.home.dir}, else {@code ROCKETMQ_HOME}, else the working directory ({@code bin/mqbroker}
     * runs in Basalt's directory).
     */
    private static PlainAclFiles loadAclFiles() {
        String homeProperty = System.getProperty("rocketmq.home.dir", System.getenv("ROCKETMQ_HOME"));
        Path home = homeProperty == null || homeProperty.isBlank() ? Path.of("").toAbsolutePath() : Path.of(homeProperty);
        Path defaultFile = home.resolve(System.getProperty("rocketmq.acl.plain.file", "conf/plain_acl.yml")).normalize();
        try {
            return PlainAclFiles.load(defaultFile, home.resolve("conf").resolve("acl"), System::currentTimeMillis);
        } catch (IOException e) {
            throw new AclConfigException("ACL 1.0 files cannot be read: " + e);
        }
    }

    /** Rereads the ACL 1.0 files when they changed; a file that does not load leaves the previous accounts in force. */
    private void reloadAclFiles() {
        try {
            if (aclFiles.reloadIfChanged()) {
                authCounters.reloaded();
            }
        } catch (AclConfigException | IOException e) {
            authCounters.reloadFailed();
            log.error("ACL 1.0 files not reloaded, the previous accounts stay in force: {}", e.getMessage());
        }
    }

    /** RocketMQ's END_TRANSACTION runtime-info keys, added to the schedule service's. */
    private Map<String, String> withEndTransactionQueue(Map<String, String> info, BrokerConfig broker) {
        Map<String, String> all = new LinkedHashMap<>(info);
        all.put("EndTransactionQueueSize", Integer.toString(endTransactionExecutor.queueSize()));
        all.put("EndTransactionThreadPoolQueueCapacity", Integer.toString(broker.endTransactionPoolQueueCapacity()));
        return all;
    }

    private RequestExecutor executor(String prefix, int threads, int capacity, long maxQueueWaitMs) {
        RequestExecutor e = RequestExecutor.create(prefix, threads, capacity, maxQueueWaitMs);
        executors.add(e);
        return e;
    }

    private void register(RequestExecutor executor, RequestProcessor processor, int... codes) {
        for (int code : codes) {
            remotingServer.registerProcessor(code, processor, executor);
            fastRemotingServer.registerProcessor(code, processor, executor);
        }
    }

    /**
     * A promoted slave stops copying its master's metadata (the round in flight applies nothing more) and keeps
     * what the last sync gave it; its topic table starts the new epoch's version (RocketMQ's
     * {@code nextVersion(epoch)}), and it registers again as the group's master. Called by the admin executor.
     */
    private void afterPromotion() {
        if (slaveSync != null) {
            slaveSync.shutdown();
        }
        // after the sync stopped: the master's last checkpoint is applied, so delivery goes on from its read time
        store.timerMessages().setDequeueEnabled(true);
        pop.setReviving(store.timerMessages().enabled());
        // the old master decided what was replicated so far: its commits are looked up in the store from now on
        transactionDecisions.beginDeciding();
        try {
            // from the offsets the last sync copied from the old master
            schedule.start();
        } catch (IOException e) {
            log.error("starting delay-level delivery after the promotion failed: {}", e.toString());
        }
        // from the CID_RMQ_SYS_TRANS offsets the last sync copied from the old master
        transactionCheck.start();
        try {
            topics.startStateVersion(replication.epoch());
        } catch (IOException e) {
            log.error("persisting the topic table's new version after the promotion failed: {}", e.toString());
        }
        nameServerPresence.registerAgainAfterPromotion();
    }

    /** Recovers and starts the store, then the services, then listens. */
    public synchronized void start() throws IOException {
        if (started) {
            return;
        }
        started = true;
        store.load();
        transactionMetrics.load();
        transactionDecisions.beginDeciding();
        // topics auto-created within the persister's interval before a crash: their queues say they exist
        topics.recoverTopicsFromQueues(store.queueIdsByTopic());
        // topics.json may say fewer queues than the store holds (an edited or restored file): keep them readable
        QueuesOnDiskCheck.apply(topics, store.queueCountsOnDisk());
        // a store RocketMQ wrote may hold state Basalt does not serve yet: say so at every start
        new StoreOpeningInspection(configuration.store().rootDir(), store, offsets).logFindings();
        store.start();
        try {
            // before POP is served: offsets consumerOffset.json lost behind stored POP checkpoints are raised
            pop.recoverOffsets(configDir(configuration));
        } catch (RuntimeException e) {
            store.shutdown();
            throw e;
        }
        try {
            replication.start();
        } catch (IOException | RuntimeException e) {
            store.shutdown();
            throw e;
        }
        try {
            // delay levels are delivered by the master; a slave only reads the offsets it has copied
            if (replication.role() == BrokerRole.SLAVE) {
                schedule.load();
            } else {
                schedule.start();
            }
        } catch (IOException | RuntimeException e) {
            replication.shutdown();
            store.shutdown();
            throw e;
        }
        // before anything is served: a master deposed while it was down must not take a write (in controller mode
        // the controller says who the master is)
        if (roleManager == null) {
            nameServerPresence.fenceIfRoutedToAnotherMaster();
        }
        // RocketMQ's changeSpecialServiceStatus: only a serving master puts due timer messages back; a slave enqueues
        store.timerMessages().setDequeueEnabled(replication.acceptsWrites());
        // POP re-delivery, like timer delivery, is the serving master's (and needs the timer wheel)
        pop.setReviving(replication.acceptsWrites() && store.timerMessages().enabled());
        pullHold.start();
        opMarkers.start();
        metadataPersister.start();
        // a committed offset reaches consumerOffset.json within one persister interval (0.2 s), so a kill -9
        // does not send a group's offset back by up to flushConsumerOffsetInterval; the periodic write stays
        offsets.onChange(metadataPersister.register("consumerOffset.json", offsets::persist)::markDirty);
        long offsetPeriodMs = configuration.broker().flushConsumerOffsetInterval();
        scheduler.scheduleAtFixedRate(periodic("persisting consumer offsets", this::persistOffsets), offsetPeriodMs,
            offsetPeriodMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(periodic("scanning clients", clients::scanExpired), 10, 10, TimeUnit.SECONDS);
        long transactionMetricsPeriodMs = Math.max(1, configuration.broker().transactionMetricFlushInterval());
        scheduler.scheduleAtFixedRate(periodic("persisting transaction metrics", this::persistTransactionMetrics),
            transactionMetricsPeriodMs, transactionMetricsPeriodMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(periodic("forgetting transaction decisions the check scan passed",
            transactionDecisions::prune), transactionMetricsPeriodMs, transactionMetricsPeriodMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(periodic("sampling runtime stats", runtimeStats::doWork), 0, 1, TimeUnit.SECONDS);
        if (aclFiles != null) {
            // RocketMQ's AclFileWatchService period
            scheduler.scheduleWithFixedDelay(periodic("reloading the ACL files", this::reloadAclFiles), ACL_RELOAD_PERIOD_MS,
                ACL_RELOAD_PERIOD_MS, TimeUnit.MILLISECONDS);
        }
        scheduler.scheduleAtFixedRate(periodic("sampling replication", haMetrics::sample), 0, 1, TimeUnit.SECONDS);
        scheduler.scheduleAtFixedRate(periodic("sampling broker stats", brokerStats::sample),
            0, StatsItem.SAMPLE_INTERVAL_MS, TimeUnit.MILLISECONDS);
        if (grpcServer != null) {
            // first: a taken gRPC port fails the start before any client is served
            grpcServer.start();
        }
        remotingServer.start();
        fastRemotingServer.start();
        if (tls.generatesCertificate()) {
            log.warn("{}; set tls.server.certPath and tls.server.keyPath for a certificate clients can verify", tls.describe());
        } else {
            log.info("{}", tls.describe());
        }
        if (aclFiles != null) {
            log.info("ACL 1.0 on (aclEnable=true): every request is checked against {} and {}", aclFiles.defaultFile(),
                aclFiles.defaultFile().resolveSibling("acl"));
        }
        metricsService.start();
        // once listening, so that the NameServers route clients to a broker that answers
        nameServerPresence.start();
        if (slaveSync != null) {
            slaveSync.start();
        }
        if (roleManager != null) {
            // a fenced start: writes are refused and the NameServers not told until the controller gives a role
            roleManager.start();
        }
        // the master asks producers about undecided half messages; a slave only copies the scan's offsets
        if (replication.role() != BrokerRole.SLAVE && replication.acceptsWrites()) {
            transactionCheck.start();
        }
        log.info("broker {} (cluster {}) serving on port {} (fast port {}, gRPC port {}), store at {}",
            configuration.broker().brokerName(), configuration.broker().brokerClusterName(), remotingServer.localPort(),
            fastRemotingServer.localPort(), grpcPort(),
            configuration.store().storePathRootDir());
    }

    /** The port of the metrics and status page endpoint, or -1 when metricsPort is 0. */
    public int metricsPort() {
        return metricsService.port();
    }

    /** The port the gRPC endpoint listens on, or -1 when it is off. */
    public int grpcPort() {
        return grpcServer == null ? -1 : grpcServer.port();
    }

    /** The port the remoting server listens on. */
    public int listenPort() {
        return remotingServer.localPort();
    }

    private void persistTransactionMetrics() {
        try {
            transactionMetrics.persist();
        } catch (IOException e) {
            log.error("persisting {} failed: {}", transactionMetrics.path(), e.toString());
        }
    }

    private void persistOffsets() {
        try {
            offsets.persist();
        } catch (IOException e) {
            log.error("persisting consumer offsets failed: {}", e.toString());
        }
    }

    /**
     * Answers held pulls, stops accepting and answers in-flight requests, persists offsets and topics,
     * shuts the store down. Keeps going when a step fails; idempotent.
     */
    public synchronized void shutdown() {
        if (!started || shutdown) {
            return;
        }
        shutdown = true;
        log.info("broker shutting down");
        step("stopping the metrics endpoint", metricsService::shutdown);
        if (roleManager != null) {
            // no role change while the broker shuts down
            step("stopping the controller role manager", roleManager::shutdown);
            step("closing the controller client", controllerClient::close);
        }
        // first, so that the NameServers stop routing clients here
        step("unregistering from the NameServers", nameServerPresence::shutdown);
        step("stopping timer delivery", () -> store.timerMessages().setDequeueEnabled(false));
        step("stopping POP re-delivery and answering parked pops", pop::shutdown);
        step("stopping the transaction back-check", transactionCheck::shutdown);
        SlaveSynchronize sync = slaveSync;
        if (sync != null) {
            step("stopping the slave's metadata sync", sync::shutdown);
        }
        step("answering held pulls", pullHold::shutdown);
        step("stopping the fast remoting server", fastRemotingServer::shutdown);
        step("stopping the remoting server", remotingServer::shutdown);
        if (grpcServer != null) {
            step("stopping the gRPC endpoint", grpcServer::shutdown);
        }
        for (RequestExecutor e : executors) {
            step("stopping executor " + e.name(), () -> {
                try {
                    if (!e.shutdown(10_000)) {
                        log.warn("executor {} still busy after 10 s", e.name());
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        scheduler.shutdownNow();
        offsets.onChange(() -> { });
        persistOffsets();
        step("writing the metadata tables still dirty", metadataPersister::shutdown);
        step("persisting topics", () -> {
            try {
                topics.persist();
            } catch (IOException e) {
                log.error("persisting topics failed: {}", e.toString());
            }
        });
        // after END_TRANSACTION's executor, before the store: the pending op markers are written
        step("writing the pending transaction op markers", opMarkers::shutdown);
        step("persisting transaction metrics", this::persistTransactionMetrics);
        step("stopping delay-level delivery", schedule::shutdown);
        step("stopping replication", replication::shutdown);
        if (masterLocator != null) {
            step("closing the master locator's client", masterLocator::close);
        }
        step("shutting the store down", store::shutdown);
        log.info("broker shut down");
    }

    /** A periodic task that logs a failure instead of silently cancelling its schedule. */
    private static Runnable periodic(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("periodic task failed: {}", what, e);
            }
        };
    }

    /** Runs one shutdown step; a failure is logged and the next steps still run. */
    private static void step(String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.error("shutdown: {} failed", what, e);
        }
    }

    public BrokerConfiguration configuration() {
        return configuration;
    }

    public MessageStore store() {
        return store;
    }

    public TopicConfigManager topics() {
        return topics;
    }

    public ConsumerOffsetManager offsets() {
        return offsets;
    }

    public Replication replication() {
        return replication;
    }

    /**
     * Replication's metrics: the role logic reports elections and master loss to {@link HaMetrics#events()}, and
     * may replace the SyncStateSet size ({@link HaMetrics#syncStateSetSize(java.util.function.IntSupplier)}).
     */
    public HaMetrics haMetrics() {
        return haMetrics;
    }

    public ClientManager clients() {
        return clients;
    }

    /** What happened to transactional messages, per topic (metrics, status page, runtime info). */
    public TransactionCounters transactionCounters() {
        return transactionCounters;
    }

    /** What is decided about half messages (END_TRANSACTION and the back-check share it). */
    public TransactionDecisions transactionDecisions() {
        return transactionDecisions;
    }

    /** config/transactionMetrics: half messages pending per real topic ({@link TransactionMetrics#givenUp}). */
    public TransactionMetrics transactionMetrics() {
        return transactionMetrics;
    }

    /** The op marker writer (TransactionalOpBatchService). */
    public OpMarkerWriter opMarkerWriter() {
        return opMarkers;
    }

    /** The back-check of undecided half messages (running on a writable master). */
    public TransactionalMessageCheckService transactionCheckService() {
        return transactionCheck;
    }

    /** The producers' connections a transaction back-check is sent on. */
    public ProducerChannels producerChannels() {
        return clients.producers();
    }

    /** Delay levels' delivery (running on the master). */
    public ScheduleMessageService schedule() {
        return schedule;
    }

    public SubscriptionGroupManager subscriptionGroups() {
        return subscriptionGroups;
    }

    /** Controller mode: the role manager (role, epoch, elections, time without master); empty otherwise. */
    public Optional<ControllerRoleManager> controllerRoleManager() {
        return Optional.ofNullable(roleManager);
    }

    /** A slave's metadata sync (stopped once promoted); empty on a broker configured as master. */
    public Optional<SlaveSynchronize> slaveSynchronize() {
        return Optional.ofNullable(slaveSync);
    }

    /** The fast (VIP) remoting port, listenPort − 2. */
    public int fastListenPort() {
        return fastRemotingServer.localPort();
    }
}
