package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Master and slave registered with a real RocketMQ 5.2.0 NameServer (in this JVM): the NameServer
 * lists both; after the master is killed and the slave promoted, the slave registers as brokerId 0
 * and clients that only know the NameServer send to it.
 */
class PromotionWithNameServerTest {
    private static final String TOPIC = "PromotedTopic";

    @TempDir
    Path dir;

    private static BrokerData group(DefaultMQAdminExt admin) throws Exception {
        return admin.examineBrokerClusterInfo().getBrokerAddrTable().get("broker-a");
    }

    @Test
    void promotedSlaveRegistersAsMasterAndTakesSends() throws Exception {
        NamesrvConfig config = new NamesrvConfig();
        config.setKvConfigPath(dir.resolve("namesrv/kvConfig.json").toString());
        config.setConfigStorePath(dir.resolve("namesrv/namesrv.properties").toString());
        NettyServerConfig server = new NettyServerConfig();
        server.setBindAddress("127.0.0.1");
        server.setListenPort(BrokerProcess.freePort());
        NamesrvController nameServer = new NamesrvController(config, server, new NettyClientConfig());
        assertTrue(nameServer.initialize());
        nameServer.start();
        String namesrv = "127.0.0.1:" + nameServer.getRemotingServer().localListenPort();
        int masterHaPort = BrokerProcess.freePort();
        DefaultMQAdminExt admin = null;
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "ASYNC_MASTER",
                 "haListenPort", Integer.toString(masterHaPort), "namesrvAddr", namesrv,
                 "registerNameServerPeriod", "10000"));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE",
                 "brokerId", "1", "haListenPort", Integer.toString(BrokerProcess.freePort()),
                 "haMasterAddress", "127.0.0.1:" + masterHaPort, "namesrvAddr", namesrv,
                 "registerNameServerPeriod", "10000"))) {
            master.start();
            slave.start();
            admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(namesrv);
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            DefaultMQAdminExt a = admin;
            await().atMost(ofSeconds(30)).until(() -> group(a) != null && group(a).getBrokerAddrs()
                .equals(Map.of(0L, master.address(), 1L, slave.address())));
            admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, 4, 4, 6));
            admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, 4, 4, 6));

            master.killHard();
            NettyRemotingClient remoting = new NettyRemotingClient(new NettyClientConfig());
            remoting.start();
            try {
                RemotingCommand promote = RemotingCommand.createRequestCommand(10101, null);
                promote.addExtField("role", "ASYNC_MASTER");
                promote.addExtField("expectedEpoch", "1");
                RemotingCommand answer = remoting.invokeSync(slave.address(), promote, 10_000);
                assertEquals(0, answer.getCode(), answer.getRemark());
            } finally {
                remoting.shutdown();
            }
            await().atMost(ofSeconds(30)).until(() -> slave.address().equals(group(a).getBrokerAddrs().get(0L)));

            DefaultMQProducer producer = new DefaultMQProducer("pg-promoted");
            producer.setNamesrvAddr(namesrv);
            producer.setInstanceName(Clients.instanceName());
            producer.setSendMsgTimeout(10_000);
            producer.start();
            try {
                assertEquals(SendStatus.SEND_OK, producer.send(
                    new Message(TOPIC, "after".getBytes(StandardCharsets.UTF_8))).getSendStatus());
            } finally {
                producer.shutdown();
            }
        } finally {
            if (admin != null) {
                admin.shutdown();
            }
            nameServer.shutdown();
        }
    }
}
