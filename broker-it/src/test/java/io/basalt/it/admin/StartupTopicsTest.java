package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import io.basalt.it.RocketMqNameServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topics a RocketMQ 5.2.0 broker creates at start, and topic attributes, seen through the official 5.2.0 admin
 * API and clients with a real 5.2.0 NameServer (in this JVM), as a new user of the admin API or of RocketMQ's
 * end-to-end suite meets them. The broker runs with {@code autoCreateTopicEnable=false}, so nothing reaches a
 * topic through TBW102.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class StartupTopicsTest {
    @TempDir
    Path dir;
    RocketMqNameServer nameServer;
    String nameServerAddress;
    final List<AutoCloseable> cleanups = new ArrayList<>();

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
        nameServerAddress = nameServer.address();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        nameServer.close();
    }

    private BrokerHandle broker(Map<String, String> extra) throws Exception {
        Map<String, String> conf = new java.util.HashMap<>(Map.of("namesrvAddr", nameServerAddress,
            "autoCreateTopicEnable", "false"));
        conf.putAll(extra);
        BrokerHandle broker = BrokerHandle.start(dir.resolve("broker"), conf);
        cleanups.add(broker);
        return broker;
    }

    private DefaultMQAdminExt admin() throws Exception {
        DefaultMQAdminExt admin = AdminClients.admin(nameServerAddress);
        cleanups.add(admin::shutdown);
        return admin;
    }

    private static QueueData onlyQueue(TopicRouteData route) {
        assertEquals(1, route.getQueueDatas().size(), route.toString());
        return route.getQueueDatas().get(0);
    }

    private static String refusal(DefaultMQAdminExt admin, String addr, TopicConfig config) {
        MQClientException e = assertThrows(MQClientException.class, () -> admin.createAndUpdateTopicConfig(addr, config));
        return e.getErrorMessage() + " " + e.getMessage();
    }

    @Test
    void theAdminApiCreatesATopicOnTheClusterAndTheStartUpTopicsAreRouted() throws Exception {
        BrokerHandle broker = broker(Map.of("traceTopicEnable", "true"));
        DefaultMQAdminExt admin = admin();
        // the cluster-name topic is what createTopic(cluster, ...) asks the NameServer for
        QueueData cluster = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> onlyQueue(admin.examineTopicRouteInfo("DefaultCluster")), q -> q != null);
        assertEquals(16, cluster.getWriteQueueNums());
        assertEquals(7, cluster.getPerm());
        assertEquals(7, onlyQueue(admin.examineTopicRouteInfo("broker-a")).getPerm());
        for (String topic : List.of("SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "DefaultCluster_REPLY_TOPIC",
            "RMQ_SYS_TRACE_TOPIC")) {
            QueueData q = onlyQueue(admin.examineTopicRouteInfo(topic));
            assertEquals(1, q.getWriteQueueNums(), topic);
            assertEquals(6, q.getPerm(), topic);
        }

        admin.createTopic("DefaultCluster", "NewTopic", 4, Map.of());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
            .until(() -> onlyQueue(admin.examineTopicRouteInfo("NewTopic")).getWriteQueueNums() == 4);

        // RocketMQ's end-to-end suite creates its topics this way, typed
        admin.createTopic("DefaultCluster", "FifoTopic", 4, Map.of("+message.type", "FIFO"));
        assertEquals(Map.of("message.type", "FIFO"), admin.examineTopicConfig(broker.address(), "FifoTopic").getAttributes());

        // a producer with message tracing on sends to it, and its traces land in the trace topic
        DefaultMQProducer producer = new DefaultMQProducer("pg-traced", true, null);
        producer.setNamesrvAddr(nameServerAddress);
        producer.setInstanceName(AdminClients.instanceName());
        producer.setSendMsgTimeout(10_000);
        producer.start();
        cleanups.add(producer::shutdown);
        Message message = new Message("NewTopic", "TagA", "traced-key", "traced".getBytes(StandardCharsets.UTF_8));
        assertEquals(SendStatus.SEND_OK, producer.send(message).getSendStatus());
        DefaultLitePullConsumer traces = AdminClients.litePull(nameServerAddress, "cg-traces", "RMQ_SYS_TRACE_TOPIC");
        cleanups.add(traces::shutdown);
        List<String> traceBodies = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (MessageExt m : traces.poll(500)) {
                traceBodies.add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
            return traceBodies.stream().anyMatch(b -> b.contains("NewTopic") && b.contains("traced-key"));
        });

        // system topics may be neither changed nor deleted
        String system = refusal(admin, broker.address(), new TopicConfig("DefaultCluster", 4, 4, 6));
        assertTrue(system.contains("conflict with system topic"), system);
    }

    @Test
    void topicAttributesAreValidatedAndThoseBasaltLacksAreRefusedNamingThem() throws Exception {
        BrokerHandle broker = broker(Map.of());
        DefaultMQAdminExt admin = admin();
        String addr = broker.address();

        TopicConfig compacted = new TopicConfig("Prices", 4, 4, 6);
        compacted.setAttributes(Map.of("+cleanup.policy", "COMPACTION"));
        String compaction = refusal(admin, addr, compacted);
        assertTrue(compaction.contains("cleanup.policy=COMPACTION is not supported: Basalt has no compaction"), compaction);
        TopicConfig batch = new TopicConfig("Batched", 4, 4, 6);
        batch.setAttributes(Map.of("+queue.type", "BatchCQ"));
        assertTrue(refusal(admin, addr, batch).contains("Basalt has no batch consume queues"));
        TopicConfig unknownKey = new TopicConfig("Unknown", 4, 4, 6);
        unknownKey.setAttributes(Map.of("+retention.hours", "5"));
        assertTrue(refusal(admin, addr, unknownKey).contains("unsupported key: retention.hours"));
        TopicConfig unknownValue = new TopicConfig("Unknown", 4, 4, 6);
        unknownValue.setAttributes(Map.of("+message.type", "SOMETIMES"));
        assertTrue(refusal(admin, addr, unknownValue).contains("value is not in set"));
        assertThrows(Exception.class, () -> admin.examineTopicConfig(addr, "Prices"), "a refused topic is not created");

        admin.createAndUpdateTopicConfig(addr, new TopicConfig("Typed", 4, 4, 6));
        TopicConfig typed = new TopicConfig("Typed", 4, 4, 6);
        typed.setAttributes(Map.of("+message.type", "NORMAL"));
        admin.createAndUpdateTopicConfig(addr, typed);
        assertEquals(Map.of("message.type", "NORMAL"), admin.examineTopicConfig(addr, "Typed").getAttributes());
        TopicConfig policyLater = new TopicConfig("Typed", 4, 4, 6);
        policyLater.setAttributes(Map.of("+cleanup.policy", "DELETE"));
        assertTrue(refusal(admin, addr, policyLater).contains("attempt to update an unchangeable attribute"));
    }

    @Test
    void aRocketMqStoreWithACompactedTopicDoesNotStart() throws Exception {
        Path config = Files.createDirectories(dir.resolve("broker/store/config"));
        Files.writeString(config.resolve("topics.json"), "{\"dataVersion\":{\"counter\":3,\"stateVersion\":0,"
            + "\"timestamp\":1700000000000},\"topicConfigTable\":{\"Prices\":{\"attributes\":{\"cleanup.policy\":"
            + "\"COMPACTION\"},\"order\":false,\"perm\":6,\"readQueueNums\":4,\"topicFilterType\":\"SINGLE_TAG\","
            + "\"topicName\":\"Prices\",\"topicSysFlag\":0,\"writeQueueNums\":4}}}");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> broker(Map.of()));
        assertTrue(e.getMessage().contains("topic[Prices] cleanup.policy=COMPACTION is not supported"), e.getMessage());
    }
}
