package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DefaultMQAdminExt 5.2.0 against a Basalt broker that is its own NameServer. */
class AdminTest {
    @TempDir
    static Path dir;
    static BrokerHandle broker;
    /** One admin client and producer per test: their connections and pool threads start and stop within the test. */
    DefaultMQAdminExt admin;
    DefaultMQProducer producer;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerHandle.start(dir, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startClients() throws Exception {
        admin = AdminClients.admin(broker.address());
        producer = AdminClients.producer(broker.address(), "pg-admin-test");
    }

    @AfterEach
    void stopClients() {
        if (producer != null) {
            producer.shutdown();
        }
        if (admin != null) {
            admin.shutdown();
        }
    }

    private List<SendResult> send(String topic, int count) throws Exception {
        List<SendResult> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = new Message(topic, "TagA", "key-" + topic + "-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
            SendResult r = producer.send(m);
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            results.add(r);
        }
        return results;
    }

    private static long sumMax(TopicStatsTable stats) {
        return stats.getOffsetTable().values().stream().mapToLong(TopicOffset::getMaxOffset).sum();
    }

    @Test
    void createsAndUpdatesATopic() throws Exception {
        TopicConfig config = new TopicConfig("AdminCreated", 3, 3, 6);
        admin.createAndUpdateTopicConfig(broker.address(), config);
        TopicConfig stored = admin.examineTopicConfig(broker.address(), "AdminCreated");
        assertEquals(3, stored.getReadQueueNums());
        assertEquals(3, stored.getWriteQueueNums());
        assertEquals(6, stored.getPerm());
        assertTrue(admin.fetchAllTopicList().getTopicList().contains("AdminCreated"));

        admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("AdminCreated", 5, 5, 6));
        assertEquals(5, admin.getAllTopicConfig(broker.address(), 10_000).getTopicConfigTable().get("AdminCreated")
            .getWriteQueueNums());
        TopicRouteData route = admin.examineTopicRouteInfo("AdminCreated");
        assertEquals(5, route.getQueueDatas().get(0).getWriteQueueNums());
        assertEquals(broker.address(), route.getBrokerDatas().get(0).selectBrokerAddr());

        TopicStatsTable stats = admin.examineTopicStats("AdminCreated");
        assertEquals(5, stats.getOffsetTable().size());
        assertEquals(0, sumMax(stats));
    }

    @Test
    void badTopicUpdatesAreRefusedWithTheirReason() throws Exception {
        // the client itself refuses illegal names and system topics; the broker checks what it lets through
        MQClientException queues = assertThrows(MQClientException.class,
            () -> admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("AdminNoQueues", 0, 0, 6)));
        assertEquals(1, queues.getResponseCode());
        assertTrue(queues.getErrorMessage().contains("must be positive"), queues.getErrorMessage());
    }

    @Test
    void deletesATopic() throws Exception {
        admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("AdminDeleted", 2, 2, 6));
        assertTrue(admin.fetchAllTopicList().getTopicList().contains("AdminDeleted"));
        admin.deleteTopicInBroker(Set.of(broker.address()), "AdminDeleted");
        assertFalse(admin.fetchAllTopicList().getTopicList().contains("AdminDeleted"));
        assertThrows(Exception.class, () -> admin.examineTopicRouteInfo("AdminDeleted"));
    }

    @Test
    void topicStatsShowMinAndMaxOffsetsPerQueue() throws Exception {
        admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("AdminStats", 2, 2, 6));
        send("AdminStats", 10);
        // Max offsets come from the consume queues, which the dispatcher fills just after the send returns.
        await().atMost(Duration.ofSeconds(30)).until(() -> sumMax(admin.examineTopicStats("AdminStats")) == 10);
        TopicStatsTable stats = admin.examineTopicStats("AdminStats");
        assertEquals(2, stats.getOffsetTable().size());
        assertEquals(10, sumMax(stats));
        for (Map.Entry<MessageQueue, TopicOffset> e : stats.getOffsetTable().entrySet()) {
            assertEquals("AdminStats", e.getKey().getTopic());
            assertEquals("broker-a", e.getKey().getBrokerName());
            assertEquals(0, e.getValue().getMinOffset());
            if (e.getValue().getMaxOffset() > 0) {
                assertTrue(e.getValue().getLastUpdateTimestamp() > 0);
            }
        }
    }

    @Test
    void consumeStatsFollowTheCommittedOffsetsAndConnectionsAreListed() throws Exception {
        admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("AdminConsume", 2, 2, 6));
        send("AdminConsume", 8);
        DefaultLitePullConsumer consumer = AdminClients.litePull(broker.address(), "cg-admin-consume", "AdminConsume");
        try {
            List<MessageExt> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                got.addAll(consumer.poll(500));
                return got.size() >= 8;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(100);
                ConsumeStats stats = admin.examineConsumeStats("cg-admin-consume");
                return stats.getOffsetTable().size() == 2 && stats.computeTotalDiff() == 0;
            });
            ConsumeStats stats = admin.examineConsumeStats("cg-admin-consume", "AdminConsume");
            assertEquals(8, stats.getOffsetTable().values().stream().mapToLong(o -> o.getBrokerOffset()).sum());
            assertEquals(8, stats.getOffsetTable().values().stream().mapToLong(o -> o.getConsumerOffset()).sum());
            assertTrue(stats.getOffsetTable().values().stream().allMatch(o -> o.getConsumerOffset() == 0 || o.getLastTimestamp() > 0));

            ConsumerConnection connection = admin.examineConsumerConnectionInfo("cg-admin-consume");
            assertEquals(1, connection.getConnectionSet().size());
            assertTrue(connection.getConnectionSet().iterator().next().getClientAddr().matches("127\\.0\\.0\\.1:\\d+"),
                connection.getConnectionSet().iterator().next().getClientAddr());
            assertNotNull(connection.getSubscriptionTable().get("AdminConsume"));
            assertTrue(admin.queryTopicConsumeByWho("AdminConsume").getGroupList().contains("cg-admin-consume"));

            // the broker passes GET_CONSUMER_RUNNING_INFO on to the consumer over its connection
            String clientId = connection.getConnectionSet().iterator().next().getClientId();
            ConsumerRunningInfo running = admin.getConsumerRunningInfo("cg-admin-consume", clientId, false);
            assertTrue(running.getSubscriptionSet().stream().anyMatch(s -> s.getTopic().equals("AdminConsume")),
                running.toString());
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void queriesMessagesByKeyAndViewsThemById() throws Exception {
        List<SendResult> sent = send("AdminQuery", 5);
        SendResult third = sent.get(2);
        QueryResult byKey = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> admin.queryMessage("AdminQuery", "key-AdminQuery-2", 32, 0, Long.MAX_VALUE),
                r -> !r.getMessageList().isEmpty());
        assertEquals(1, byKey.getMessageList().size());
        MessageExt found = byKey.getMessageList().get(0);
        assertEquals("body-2", new String(found.getBody(), StandardCharsets.UTF_8));
        assertEquals("TagA", found.getTags());

        MessageExt byOffsetId = admin.viewMessage(third.getOffsetMsgId());
        assertEquals("body-2", new String(byOffsetId.getBody(), StandardCharsets.UTF_8));
        assertEquals(third.getMsgId(), byOffsetId.getMsgId());

        MessageExt byUniqueId = admin.viewMessage("AdminQuery", third.getMsgId());
        assertEquals("body-2", new String(byUniqueId.getBody(), StandardCharsets.UTF_8));
        assertEquals(third.getQueueOffset(), byUniqueId.getQueueOffset());
    }

    @Test
    void brokerRuntimeInfoCarriesRocketMqKeys() throws Exception {
        send("AdminRuntime", 3);
        KVTable table = await().atMost(Duration.ofSeconds(30))
            .until(() -> admin.fetchBrokerRuntimeStats(broker.address()),
                t -> Long.parseLong(t.getTable().get("msgPutTotalTodayNow")) >= 3);
        Map<String, String> info = table.getTable();
        assertEquals("V5_2_0", info.get("brokerVersionDesc"));
        assertTrue(Long.parseLong(info.get("commitLogMaxOffset")) > 0);
        assertEquals(3, info.get("putTps").split(" ").length, info.get("putTps"));
        assertTrue(Double.parseDouble(info.get("commitLogDiskRatio")) > 0);
        assertTrue(Long.parseLong(info.get("earliestMessageTimeStamp")) > 0);
        for (String key : List.of("msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning", "msgGetTotalTodayNow",
            "getTransferredTps", "pageCacheLockTimeMills", "dispatchBehindBytes", "sendThreadPoolQueueSize")) {
            assertNotNull(info.get(key), key);
        }
    }

    @Test
    void clusterInfoListsTheBroker() throws Exception {
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        assertEquals(Set.of("broker-a"), cluster.getClusterAddrTable().get("DefaultCluster"));
        assertEquals(broker.address(), cluster.getBrokerAddrTable().get("broker-a").getBrokerAddrs().get(0L));
        assertTrue(admin.fetchTopicsByCLuster("DefaultCluster").getTopicList().contains("TBW102"));
    }
}
