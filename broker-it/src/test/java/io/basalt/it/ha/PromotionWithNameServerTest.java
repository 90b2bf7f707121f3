package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
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
 * Master and slave registered with a real RocketMQ 5.2.0 NameServer (in this JVM): the NameServer
 * lists both; after the master is killed and the slave promoted, the slave registers as brokerId 0
 * and clients that only know the NameServer send to it. A master still alive at the promotion is
 * fenced: it refuses writes and leaves the NameServer, so the route stays with the new master.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class PromotionWithNameServerTest {
    private static final String TOPIC = "PromotedTopic";

    @TempDir
    Path dir;
    private RocketMqNameServer nameServer;
    private String namesrv;
    private DefaultMQAdminExt admin;

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
        namesrv = nameServer.address();
        admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
    }

    @AfterEach
    void stopNameServer() {
        admin.shutdown();
        nameServer.close();
    }

    private BrokerData group() throws Exception {
        return admin.examineBrokerClusterInfo().getBrokerAddrTable().get("broker-a");
    }

    private BrokerProcess master(int haPort) throws Exception {
        return BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "ASYNC_MASTER",
            "haListenPort", Integer.toString(haPort), "namesrvAddr", namesrv, "registerNameServerPeriod", "10000"));
    }

    private BrokerProcess slave(int masterHaPort) throws Exception {
        return slave(masterHaPort, 1);
    }

    private BrokerProcess slave(int masterHaPort, int brokerId) throws Exception {
        return BrokerProcess.create(dir.resolve("slave-" + brokerId), Map.of("brokerRole", "SLAVE",
            "brokerId", Integer.toString(brokerId), "haListenPort", Integer.toString(BrokerProcess.freePort()),
            "haMasterAddress", "127.0.0.1:" + masterHaPort, "namesrvAddr", namesrv, "registerNameServerPeriod", "10000"));
    }

    private void startGroup(BrokerProcess master, BrokerProcess slave) throws Exception {
        master.start();
        slave.start();
        await().atMost(ofSeconds(30)).until(() -> group() != null && group().getBrokerAddrs()
            .equals(Map.of(0L, master.address(), 1L, slave.address())));
        admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, 4, 4, 6));
        admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, 4, 4, 6));
        // the slave asks the master's protocol once the NameServer named the master: wait until it streams
        await().atMost(ofSeconds(30)).ignoreExceptions().until(() -> "TRANSFER".equals(
            admin.fetchBrokerRuntimeStats(slave.address()).getTable().get("haClientState")));
    }

    private static void promote(BrokerProcess slave) throws Exception {
        RemotingCommand answer = askToPromote(slave);
        assertEquals(0, answer.getCode(), answer.getRemark());
    }

    private static RemotingCommand askToPromote(BrokerProcess slave) throws Exception {
        NettyRemotingClient remoting = new NettyRemotingClient(new NettyClientConfig());
        remoting.start();
        try {
            RemotingCommand promote = RemotingCommand.createRequestCommand(10101, null);
            promote.addExtField("role", "ASYNC_MASTER");
            promote.addExtField("expectedEpoch", "1");
            return remoting.invokeSync(slave.address(), promote, 10_000);
        } finally {
            remoting.shutdown();
        }
    }

    /** The master dies; the slave is promoted and the NameServer routes the group to it. */
    private void killAndPromote(BrokerProcess master, BrokerProcess slave) throws Exception {
        master.killHard();
        promote(slave);
        await().atMost(ofSeconds(30)).until(() -> slave.address().equals(group().getBrokerAddrs().get(0L)));
    }

    private SendStatus sendThroughTheNameServer(String group) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(Clients.instanceName());
        producer.setSendMsgTimeout(10_000);
        producer.start();
        try {
            return producer.send(new Message(TOPIC, "after".getBytes(StandardCharsets.UTF_8))).getSendStatus();
        } finally {
            producer.shutdown();
        }
    }

    @Test
    void promotedSlaveRegistersAsMasterAndTakesSends() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(masterHaPort); BrokerProcess slave = slave(masterHaPort)) {
            startGroup(master, slave);
            killAndPromote(master, slave);
            assertEquals(SendStatus.SEND_OK, sendThroughTheNameServer("pg-promoted"));
        }
    }

    @Test
    void aMasterStillAliveAtThePromotionIsFencedAndLeavesTheRouteToTheNewMaster() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(masterHaPort); BrokerProcess slave = slave(masterHaPort)) {
            startGroup(master, slave);
            promote(slave);
            await().atMost(ofSeconds(30)).until(() ->
                "true".equals(admin.fetchBrokerRuntimeStats(master.address()).getTable().get("haFenced")));
            // a registration period (10 s) later the route still names the new master alone
            await().during(ofSeconds(11)).atMost(ofSeconds(40)).until(() ->
                Map.of(0L, slave.address()).equals(group().getBrokerAddrs()));
            assertEquals(SendStatus.SEND_OK, sendThroughTheNameServer("pg-fenced"));

            DefaultMQProducer direct = new DefaultMQProducer("pg-direct");
            direct.setNamesrvAddr(master.address()); // the old master answers route queries itself
            direct.setInstanceName(Clients.instanceName());
            direct.setRetryTimesWhenSendFailed(0);
            direct.start();
            try {
                Exception failed = assertThrows(Exception.class,
                    () -> direct.send(new Message(TOPIC, "to the old master".getBytes(StandardCharsets.UTF_8))));
                Throwable cause = failed;
                while (cause != null && !(cause instanceof MQBrokerException)) {
                    cause = cause.getCause();
                }
                assertTrue(cause != null, "the broker refused the send: " + failed);
                MQBrokerException refused = (MQBrokerException) cause;
                assertEquals(14, refused.getResponseCode(), "SERVICE_NOT_AVAILABLE");
                assertTrue(refused.getErrorMessage().contains("fenced"), refused.getErrorMessage());
            } finally {
                direct.shutdown();
            }
        }
    }

    @Test
    void aDeposedMasterRestartedAsMasterStartsFencedAndLeavesTheRouteToTheNewMaster() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(masterHaPort); BrokerProcess slave = slave(masterHaPort)) {
            startGroup(master, slave);
            killAndPromote(master, slave);

            // the operator restarts the old master with its old configuration, still ASYNC_MASTER
            master.start();
            await().atMost(ofSeconds(30)).until(() ->
                "true".equals(admin.fetchBrokerRuntimeStats(master.address()).getTable().get("haFenced")));
            await().during(ofSeconds(11)).atMost(ofSeconds(40)).until(() ->
                slave.address().equals(group().getBrokerAddrs().get(0L)));
            assertEquals(SendStatus.SEND_OK, sendThroughTheNameServer("pg-restarted"));
        }
    }
    @Test
    void aSecondSlaveIsNotPromotedOnceAnotherServesAsMaster() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(masterHaPort); BrokerProcess first = slave(masterHaPort, 1);
             BrokerProcess second = slave(masterHaPort, 2)) {
            master.start();
            first.start();
            second.start();
            await().atMost(ofSeconds(30)).until(() -> group() != null && group().getBrokerAddrs()
                .equals(Map.of(0L, master.address(), 1L, first.address(), 2L, second.address())));
            killAndPromote(master, first);

            // both slaves followed epoch 1: only the NameServer's route tells the second one it is too late
            RemotingCommand refused = askToPromote(second);
            assertEquals(1, refused.getCode(), "SYSTEM_ERROR");
            assertTrue(refused.getRemark().contains(first.address()), refused.getRemark());
            assertEquals("SLAVE", admin.fetchBrokerRuntimeStats(second.address()).getTable().get("haRole"));
            assertEquals(first.address(), group().getBrokerAddrs().get(0L));
        }
    }
}
