package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DefaultMQAdminExt 5.2.0 (what mqadmin runs) against a broker that is its own name server. */
class AdminTest {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    /** One admin client per test: its connections and pool threads start and stop within the test. */
    DefaultMQAdminExt admin;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerProcess.start(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startAdmin() throws Exception {
        admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
    }

    @AfterEach
    void stopAdmin() {
        if (admin != null) {
            admin.shutdown();
        }
    }

    @Test
    void updateTopicAsMqadminDoesCreatesTheTopicWithItsQueues() throws Exception {
        TopicConfig config = new TopicConfig("AdminTopic", 8, 8, 6);
        admin.createAndUpdateTopicConfig(broker.address(), config);
        TopicRouteData route = admin.examineTopicRouteInfo("AdminTopic");
        assertEquals(8, route.getQueueDatas().get(0).getWriteQueueNums());
        assertEquals(broker.address(), route.getBrokerDatas().get(0).getBrokerAddrs().get(0L));
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        assertTrue(cluster.getClusterAddrTable().get("DefaultCluster").contains("broker-a"));
        KVTable runtime = admin.fetchBrokerRuntimeStats(broker.address());
        assertFalse(runtime.getTable().isEmpty());
    }

    @Test
    void topicStatsAndMessageQueriesSeeWhatWasSent() throws Exception {
        DefaultMQProducer p = Clients.producer(broker, "pg-admin");
        SendResult sent;
        try {
            sent = p.send(new Message("AdminStats", "TagA", "admin-key", "hello".getBytes(StandardCharsets.UTF_8)));
        } finally {
            p.shutdown();
        }
        // The consume queue is built from the log just after the send is answered.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            TopicStatsTable stats = admin.examineTopicStats("AdminStats");
            assertEquals(1, stats.getOffsetTable().values().stream()
                .mapToLong(o -> o.getMaxOffset() - o.getMinOffset()).sum());
        });
        MessageExt byId = admin.viewMessage("AdminStats", sent.getOffsetMsgId());
        assertEquals("hello", new String(byId.getBody(), StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> !admin.queryMessage("AdminStats", "admin-key", 10, 0,
            Long.MAX_VALUE).getMessageList().isEmpty());
    }
}
