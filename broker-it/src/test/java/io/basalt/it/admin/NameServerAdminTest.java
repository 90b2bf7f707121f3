package io.basalt.it.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerProcess;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NameServer administration {@code mqadmin} sends to a Basalt broker that is its own NameServer: wipeWritePerm /
 * addWritePerm drain and restore the broker in routes, KV config round trips (kept in kvConfig.json), updateOrderConf
 * with orderMessageEnable puts orderTopicConf in routes, getNamesrvConfig / updateNamesrvConfig.
 */
class NameServerAdminTest {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    /** One per test: the admin client starts some of its threads on first use, which a shared one would leak. */
    DefaultMQAdminExt admin;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerProcess.start(dir);
        for (String topic : new String[] {"NsTopic", "NsOrderTopic"}) {
            String out = MqAdmin.run("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", topic, "-r", "2",
                "-w", "2");
            assertTrue(out.contains("success"), out);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startAdmin() throws Exception {
        admin = AdminClients.admin(broker.address());
    }

    @AfterEach
    void stopAdmin() {
        admin.shutdown();
    }

    private int routePerm(String topic) throws Exception {
        QueueData queues = admin.examineTopicRouteInfo(topic).getQueueDatas().get(0);
        return queues.getPerm();
    }

    @Test
    void wipeWritePermDrainsTheBrokerAndAddWritePermRestoresIt() throws Exception {
        assertEquals(6, routePerm("NsTopic"));

        String wiped = MqAdmin.run("wipeWritePerm", "-b", "broker-a", "-n", broker.address());
        assertTrue(wiped.contains("wipe write perm of broker[broker-a] in name server[" + broker.address() + "] OK"), wiped);
        assertEquals(4, routePerm("NsTopic"));
        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-wiped");
        try {
            MQClientException refused = assertThrows(MQClientException.class,
                () -> producer.send(new Message("NsTopic", "x".getBytes(StandardCharsets.UTF_8))));
            assertTrue(refused.getMessage().contains("No route info"), refused.getMessage());
        } finally {
            producer.shutdown();
        }

        String added = MqAdmin.run("addWritePerm", "-b", "broker-a", "-n", broker.address());
        assertTrue(added.contains("add write perm of broker[broker-a] in name server[" + broker.address() + "] OK"), added);
        assertEquals(6, routePerm("NsTopic"));
        DefaultMQProducer again = AdminClients.producer(broker.address(), "pg-restored");
        try {
            assertEquals(SendStatus.SEND_OK,
                again.send(new Message("NsTopic", "x".getBytes(StandardCharsets.UTF_8))).getSendStatus());
        } finally {
            again.shutdown();
        }
    }

    @Test
    void kvConfigRoundTripsAndIsKeptInRocketMqsFormat() throws Exception {
        String put = MqAdmin.run("updateKvConfig", "-s", "ns-it", "-k", "k1", "-v", "v1", "-n", broker.address());
        assertTrue(put.contains("create or update kv config to namespace success."), put);
        assertEquals("v1", admin.getKVConfig("ns-it", "k1"));
        assertEquals(Map.of("k1", "v1"), admin.getKVListByNamespace("ns-it").getTable());
        String stored = Files.readString(dir.resolve("store/config/kvConfig.json"));
        assertTrue(stored.replace(" ", "").replace("\n", "").contains("\"ns-it\":{\"k1\":\"v1\"}"), stored);

        String deleted = MqAdmin.run("deleteKvConfig", "-s", "ns-it", "-k", "k1", "-n", broker.address());
        assertTrue(deleted.contains("delete kv config from namespace success"), deleted);
        MQClientException gone = assertThrows(MQClientException.class, () -> admin.getKVConfig("ns-it", "k1"));
        assertTrue(gone.getMessage().contains("No config item"), gone.getMessage());
    }

    @Test
    void anOrderConfAppearsInRoutesOnceOrderMessageEnableIsOn() throws Exception {
        String put = MqAdmin.run("updateOrderConf", "-t", "NsOrderTopic", "-v", "broker-a:2", "-m", "put", "-n", broker.address());
        assertTrue(put.contains("update orderConf success"), put);
        assertNull(admin.examineTopicRouteInfo("NsOrderTopic").getOrderTopicConf());

        String before = MqAdmin.run("getNamesrvConfig", "-n", broker.address());
        assertTrue(before.lines().anyMatch(l -> l.contains("orderMessageEnable") && l.trim().endsWith("false")), before);
        String updated = MqAdmin.run("updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true", "-n", broker.address());
        assertTrue(updated.contains("update name server config success!"), updated);
        String after = MqAdmin.run("getNamesrvConfig", "-n", broker.address());
        assertTrue(after.lines().anyMatch(l -> l.contains("orderMessageEnable") && l.trim().endsWith("true")), after);
        assertEquals("broker-a:2", admin.examineTopicRouteInfo("NsOrderTopic").getOrderTopicConf());
        assertTrue(Files.readString(dir.resolve("store/config/namesrv.properties")).contains("orderMessageEnable=true"));

        String refused = MqAdmin.run("updateNamesrvConfig", "-k", "kvConfigPath", "-v", "elsewhere/x", "-n", broker.address());
        assertTrue(refused.contains("black list"), refused);
    }
}
