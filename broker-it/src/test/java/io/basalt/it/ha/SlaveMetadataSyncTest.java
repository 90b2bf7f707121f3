package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageQueueAssignment;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.header.GetMaxOffsetRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.RocketMqNameServer;
import io.basalt.it.Clients;

/**
 * A master and its slave registered with a real RocketMQ 5.2.0 NameServer (in this JVM), driven by the official
 * clients: the slave holds the master's topics, groups and committed offsets (and loses a topic the master
 * deleted); a consumer reading far behind is sent to the slave only with {@code slaveReadEnable}, and then gets
 * every message; a slave promoted after its master was killed serves the group from its committed offsets.
 * "Far behind" is made reachable with {@code accessMessageInMemoryMaxRatio=0} on the master: every read counts
 * as a read from disk.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class SlaveMetadataSyncTest {
    private static final String BROKER_NAME = "broker-a";

    @TempDir
    Path dir;
    private RocketMqNameServer nameServer;
    private String namesrv;
    private DefaultMQAdminExt admin;
    private NettyRemotingClient remoting;
    private final List<AutoCloseable> cleanups = new ArrayList<>();

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
        namesrv = nameServer.address();
        admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        remoting = new NettyRemotingClient(new NettyClientConfig());
        remoting.start();
    }

    @AfterEach
    void stopNameServer() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        remoting.shutdown();
        admin.shutdown();
        nameServer.close();
    }

    private BrokerProcess master(int haPort, Map<String, String> extra) throws Exception {
        Map<String, String> conf = new HashMap<>(Map.of("brokerRole", "ASYNC_MASTER", "haListenPort",
            Integer.toString(haPort), "namesrvAddr", namesrv, "registerNameServerPeriod", "10000"));
        conf.putAll(extra);
        BrokerProcess b = BrokerProcess.create(dir.resolve("master"), conf);
        cleanups.add(b);
        return b;
    }

    private BrokerProcess slave(int masterHaPort, Map<String, String> extra) throws Exception {
        Map<String, String> conf = new HashMap<>(Map.of("brokerRole", "SLAVE", "brokerId", "1",
            "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + masterHaPort,
            "namesrvAddr", namesrv, "registerNameServerPeriod", "10000"));
        conf.putAll(extra);
        BrokerProcess b = BrokerProcess.create(dir.resolve("slave"), conf);
        cleanups.add(b);
        return b;
    }

    private void startGroup(BrokerProcess master, BrokerProcess slave) throws Exception {
        master.start();
        slave.start();
        await().atMost(ofSeconds(30)).until(() -> admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME) != null
            && admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME).getBrokerAddrs()
            .equals(Map.of(0L, master.address(), 1L, slave.address())));
    }

    private static SubscriptionGroupConfig group(String name) {
        SubscriptionGroupConfig group = new SubscriptionGroupConfig();
        group.setGroupName(name);
        group.setBrokerId(0);
        group.setWhichBrokerWhenConsumeSlowly(1);
        return group;
    }

    private boolean hasTopic(BrokerProcess broker, String topic) throws Exception {
        return admin.getAllTopicConfig(broker.address(), 10_000).getTopicConfigTable().containsKey(topic);
    }

    private long committedOffset(BrokerProcess broker, String group, String topic, int queueId) throws Exception {
        QueryConsumerOffsetRequestHeader header = new QueryConsumerOffsetRequestHeader();
        header.setConsumerGroup(group);
        header.setTopic(topic);
        header.setQueueId(queueId);
        RemotingCommand answer = remoting.invokeSync(broker.address(),
            RemotingCommand.createRequestCommand(RequestCode.QUERY_CONSUMER_OFFSET, header), 10_000);
        return answer.getCode() == 0 ? Long.parseLong(answer.getExtFields().get("offset")) : -1;
    }

    /** QUERY_ASSIGNMENT as a BROADCASTING consumer asks it (every readable queue of the route, with the mode). */
    private Set<MessageQueueAssignment> broadcastAssignment(BrokerProcess broker, String topic, String group)
        throws Exception {
        return admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl().queryAssignment(
            broker.address(), topic, group, "broadcast-client", "AVG", MessageModel.BROADCASTING, 10_000);
    }

    private long maxOffset(BrokerProcess broker, String topic, int queueId) throws Exception {
        GetMaxOffsetRequestHeader header = new GetMaxOffsetRequestHeader();
        header.setTopic(topic);
        header.setQueueId(queueId);
        RemotingCommand answer = remoting.invokeSync(broker.address(),
            RemotingCommand.createRequestCommand(RequestCode.GET_MAX_OFFSET, header), 10_000);
        return answer.getCode() == 0 ? Long.parseLong(answer.getExtFields().get("offset")) : -1;
    }

    private long messagesServed(BrokerProcess broker) throws Exception {
        return Long.parseLong(admin.fetchBrokerRuntimeStats(broker.address()).getTable().get("msgGetTotalTodayNow"));
    }

    private void send(String topic, int count) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("pg-" + topic);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(Clients.instanceName());
        producer.setSendMsgTimeout(10_000);
        producer.start();
        try {
            for (int i = 0; i < count; i++) {
                assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, "TagA", "key-" + i,
                    ("body-" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
            }
        } finally {
            producer.shutdown();
        }
    }

    private Map<String, MessageExt> consume(String group, String topic) throws Exception {
        Map<String, MessageExt> received = new ConcurrentHashMap<>();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName(Clients.instanceName());
        consumer.setPollNameServerInterval(1000);
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setPullBatchSize(4);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.put(m.getKeys(), m));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        cleanups.add(consumer::shutdown);
        return received;
    }

    /** Sends {@code count} messages and waits until the slave holds all of them. */
    private void sendAndReplicate(BrokerProcess slave, String topic, int count) throws Exception {
        send(topic, count);
        await().atMost(ofSeconds(30)).until(() -> {
            long total = 0;
            for (int q = 0; q < 4; q++) {
                total += Math.max(0, maxOffset(slave, topic, q));
            }
            return total == count;
        });
    }

    @Test
    void theSlaveHoldsTheMastersTopicsGroupsAndOffsetsAndLosesATopicTheMasterDeleted() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        BrokerProcess master = master(masterHaPort, Map.of());
        BrokerProcess slave = slave(masterHaPort, Map.of());
        startGroup(master, slave);
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig("SyncedTopic", 4, 4, 6));
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig("DeletedTopic", 2, 2, 6));
        admin.createAndUpdateSubscriptionGroupConfig(master.address(), group("cg-synced"));
        admin.updateConsumeOffset(master.address(), "cg-synced", new MessageQueue("SyncedTopic", BROKER_NAME, 2), 7);

        await().atMost(ofSeconds(30)).until(() -> hasTopic(slave, "SyncedTopic") && hasTopic(slave, "DeletedTopic")
            && admin.getAllSubscriptionGroup(slave.address(), 10_000).getSubscriptionGroupTable().containsKey("cg-synced")
            && committedOffset(slave, "cg-synced", "SyncedTopic", 2) == 7);
        assertEquals(4, admin.examineTopicConfig(slave.address(), "SyncedTopic").getReadQueueNums());

        // the request modes: the slave's copy is what its QUERY_ASSIGNMENT answers with (over the NameServer's route)
        admin.setMessageRequestMode(master.address(), "SyncedTopic", "cg-synced", MessageRequestMode.POP, 1, 10_000);
        await().atMost(ofSeconds(30)).until(() -> {
            Set<MessageQueueAssignment> assigned = broadcastAssignment(slave, "SyncedTopic", "cg-synced");
            return assigned != null && assigned.size() == 4
                && assigned.stream().allMatch(a -> a.getMode() == MessageRequestMode.POP);
        });

        admin.deleteTopicInBroker(Set.of(master.address()), "DeletedTopic");
        await().atMost(ofSeconds(30)).until(() -> !hasTopic(slave, "DeletedTopic"));
        assertTrue(hasTopic(slave, "SyncedTopic"));
    }

    @Test
    void withoutSlaveReadEnableAConsumerFarBehindStaysOnTheMasterAndTheSlaveRejectsPulls() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        BrokerProcess master = master(masterHaPort, Map.of("accessMessageInMemoryMaxRatio", "0"));
        BrokerProcess slave = slave(masterHaPort, Map.of());
        startGroup(master, slave);
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig("BacklogTopic", 4, 4, 6));
        admin.createAndUpdateSubscriptionGroupConfig(master.address(), group("cg-master-only"));
        sendAndReplicate(slave, "BacklogTopic", 40);
        await().atMost(ofSeconds(30)).until(() -> hasTopic(slave, "BacklogTopic"));

        Map<String, MessageExt> received = consume("cg-master-only", "BacklogTopic");
        await().atMost(ofSeconds(40)).until(() -> received.size() == 40);
        assertEquals(0, messagesServed(slave), "no pull reached the slave");

        PullMessageRequestHeader pull = new PullMessageRequestHeader();
        pull.setConsumerGroup("cg-master-only");
        pull.setTopic("BacklogTopic");
        pull.setQueueId(0);
        pull.setQueueOffset(0L);
        pull.setMaxMsgNums(4);
        pull.setSysFlag(0);
        pull.setCommitOffset(0L);
        pull.setSuspendTimeoutMillis(0L);
        pull.setSubVersion(0L);
        RemotingCommand refused = remoting.invokeSync(slave.address(),
            RemotingCommand.createRequestCommand(RequestCode.PULL_MESSAGE, pull), 10_000);
        assertEquals(2, refused.getCode(), "SYSTEM_BUSY: " + refused.getRemark());
        assertTrue(refused.getRemark().startsWith("[REJECTREQUEST]system busy, start flow control for a while"),
            refused.getRemark());
        assertTrue(refused.getRemark().contains("slaveReadEnable=false"), refused.getRemark());
    }

    @Test
    void withSlaveReadEnableAConsumerFarBehindReadsFromTheSlaveAndGetsEveryMessage() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        BrokerProcess master = master(masterHaPort, Map.of("accessMessageInMemoryMaxRatio", "0", "slaveReadEnable", "true"));
        BrokerProcess slave = slave(masterHaPort, Map.of("slaveReadEnable", "true"));
        startGroup(master, slave);
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig("BacklogTopic", 4, 4, 6));
        admin.createAndUpdateSubscriptionGroupConfig(master.address(), group("cg-slave-reads"));
        sendAndReplicate(slave, "BacklogTopic", 40);
        // the slave knows the topic from the master alone
        await().atMost(ofSeconds(30)).until(() -> hasTopic(slave, "BacklogTopic"));

        Map<String, MessageExt> received = consume("cg-slave-reads", "BacklogTopic");
        await().atMost(ofSeconds(40)).until(() -> received.size() == 40);
        for (int i = 0; i < 40; i++) {
            assertEquals("body-" + i, new String(received.get("key-" + i).getBody(), StandardCharsets.UTF_8));
        }
        await().atMost(ofSeconds(10)).until(() -> messagesServed(slave) > 0);
    }

    @Test
    void aSlavePromotedAfterItsMasterWasKilledServesTheGroupFromItsCommittedOffsets() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        BrokerProcess master = master(masterHaPort, Map.of());
        BrokerProcess slave = slave(masterHaPort, Map.of());
        startGroup(master, slave);
        // created on the master only: the slave knows them from the sync alone
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig("ResumedTopic", 4, 4, 6));
        admin.createAndUpdateSubscriptionGroupConfig(master.address(), group("cg-resumed"));
        sendAndReplicate(slave, "ResumedTopic", 40);
        for (int q = 0; q < 4; q++) {
            assertEquals(10, maxOffset(master, "ResumedTopic", q));
            admin.updateConsumeOffset(master.address(), "cg-resumed", new MessageQueue("ResumedTopic", BROKER_NAME, q), 6);
        }
        // a complete sync: the group is copied after the offsets within one round
        await().atMost(ofSeconds(30)).until(() -> {
            for (int q = 0; q < 4; q++) {
                if (committedOffset(slave, "cg-resumed", "ResumedTopic", q) != 6) {
                    return false;
                }
            }
            return admin.getAllSubscriptionGroup(slave.address(), 10_000).getSubscriptionGroupTable()
                .containsKey("cg-resumed");
        });

        master.killHard();
        RemotingCommand promote = RemotingCommand.createRequestCommand(10101, null);
        promote.addExtField("role", "ASYNC_MASTER");
        promote.addExtField("expectedEpoch", "1");
        RemotingCommand promoted = remoting.invokeSync(slave.address(), promote, 10_000);
        assertEquals(0, promoted.getCode(), promoted.getRemark());
        await().atMost(ofSeconds(30)).until(() -> slave.address().equals(
            admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME).getBrokerAddrs().get(0L)));
        assertNotNull(admin.examineTopicConfig(slave.address(), "ResumedTopic"));
        assertTrue(admin.getAllSubscriptionGroup(slave.address(), 10_000).getSubscriptionGroupTable()
            .containsKey("cg-resumed"));

        Map<String, MessageExt> received = consume("cg-resumed", "ResumedTopic");
        await().atMost(ofSeconds(40)).until(() -> received.size() == 16);
        for (MessageExt m : received.values()) {
            assertTrue(m.getQueueOffset() >= 6, "resumed from the committed offset: " + m);
        }
    }
}
