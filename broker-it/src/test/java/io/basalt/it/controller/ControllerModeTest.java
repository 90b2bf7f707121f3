package io.basalt.it.controller;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.RocketMqNameServer;

/**
 * Basalt brokers in controller mode under the official RocketMQ 5.2.0 Controller (one node): the first broker is
 * elected master and registers as brokerId 0, the second follows as a slave with its controller id; after the master
 * is killed with kill -9 the Controller elects the slave, which registers as brokerId 0, takes the official
 * producer's sends and holds every message acknowledged before; the old master restarted rejoins as a slave.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class ControllerModeTest {
    private static final String TOPIC = "ControllerModeTopic";
    private static final int SENT = 40;

    @TempDir
    Path dir;

    private BrokerProcess broker(String name, RocketMqControllerProcess controller, String namesrv) throws Exception {
        return BrokerProcess.create(dir.resolve(name), Map.ofEntries(Map.entry("enableControllerMode", "true"),
            Map.entry("controllerAddr", controller.controllerAddr()), Map.entry("namesrvAddr", namesrv),
            Map.entry("brokerId", "-1"), Map.entry("brokerRole", "SLAVE"),
            Map.entry("controllerHeartBeatTimeoutMills", "3000"), Map.entry("brokerHeartbeatInterval", "300"),
            Map.entry("syncBrokerMetadataPeriod", "500"), Map.entry("checkSyncStateSetPeriod", "500"),
            Map.entry("registerNameServerPeriod", "10000")));
    }

    @Test
    void theControllerElectsAMasterAndAnotherAfterAKill() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startSingle(dir.resolve("controller"),
                 RocketMqControllerProcess.FAST)) {
            String namesrv = nameServer.address();
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(namesrv);
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try (BrokerProcess first = broker("b1", controller, namesrv);
                 BrokerProcess second = broker("b2", controller, namesrv)) {
                first.start();
                await().atMost(ofSeconds(60)).until(() -> first.address().equals(addrs(admin).get(0L)));
                second.start();
                await().atMost(ofSeconds(60)).until(() -> Map.of(0L, first.address(), 2L, second.address())
                    .equals(addrs(admin)));
                admin.createAndUpdateTopicConfig(first.address(), new TopicConfig(TOPIC, 4, 4, 6));

                DefaultMQProducer producer = new DefaultMQProducer("pg-controller");
                producer.setNamesrvAddr(namesrv);
                producer.setInstanceName(Clients.instanceName());
                producer.setSendMsgTimeout(5_000);
                producer.start();
                try {
                    for (int i = 0; i < SENT; i++) {
                        assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC,
                            ("m" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
                    }
                    // no replica wait by default (inSyncReplicas=1): the acknowledged messages reach the slave first
                    await().atMost(ofSeconds(30)).until(() -> "0".equals(admin.fetchBrokerRuntimeStats(first.address())
                        .getTable().get("haSlave0LagBytes")));

                    first.killHard();
                    await().atMost(ofSeconds(60)).until(() -> second.address().equals(addrs(admin).get(0L)));
                    await().atMost(ofSeconds(60)).ignoreExceptions().until(() -> producer.send(new Message(TOPIC,
                        "after".getBytes(StandardCharsets.UTF_8))).getSendStatus() == SendStatus.SEND_OK);
                    long held = 0;
                    for (Map.Entry<MessageQueue, TopicOffset> e : admin.examineTopicStats(TOPIC).getOffsetTable()
                        .entrySet()) {
                        held += e.getValue().getMaxOffset();
                    }
                    assertEquals(SENT + 1, held, "every acknowledged message and the one after the failover");

                    first.start();
                    await().atMost(ofSeconds(60)).until(() -> Map.of(0L, second.address(), 1L, first.address())
                        .equals(addrs(admin)));
                } finally {
                    producer.shutdown();
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    private static Map<Long, String> addrs(DefaultMQAdminExt admin) throws Exception {
        BrokerData group = admin.examineBrokerClusterInfo().getBrokerAddrTable().get("broker-a");
        return group == null ? Map.of() : Map.copyOf(group.getBrokerAddrs());
    }
}
