package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.remoting.protocol.body.BrokerStatsData;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.CMResult;
import org.apache.rocketmq.remoting.protocol.body.ConsumeMessageDirectlyResult;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.GroupList;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.body.ProducerConnection;
import org.apache.rocketmq.remoting.protocol.body.ProducerTableInfo;
import org.apache.rocketmq.remoting.protocol.body.QueueTimeSpan;
import org.apache.rocketmq.remoting.protocol.body.SubscriptionGroupWrapper;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.tools.admin.api.MessageTrack;
import org.apache.rocketmq.tools.admin.api.TrackType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin-API calls rocketmq-dashboard 2.0.0 makes for its cluster, topic, consumer, producer, message and config
 * pages, made through the official 5.2.0 {@code DefaultMQAdminExt} against a Basalt broker, each checked for the
 * result the page shows. The calls of the broker configuration, statistics and offset-reset areas have test methods
 * of their own ({@code brokerConfig_*}, {@code stats_*}, {@code offsets_*}).
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official clients the class's tests share keep their remoting clients for the whole class; each client's"
        + " name-server scan pool starts a thread per scan until it reaches its core size, whichever test runs then")
class DashboardAdminCallsTest {
    static final String TOPIC = "DbTopic";
    static final String PRODUCER_GROUP = "pg-db";
    static final String PUSH_GROUP = "cg-db";
    static final String OFFLINE_GROUP = "cg-db-offline";

    @TempDir
    static Path dir;
    static BrokerHandle broker;
    static String addr;
    static DefaultMQAdminExt admin;
    static DefaultMQProducer producer;
    static DefaultMQPushConsumer consumer;
    static final List<SendResult> sent = new ArrayList<>();
    static final List<MessageExt> consumed = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerHandle.start(dir, Map.of());
        addr = broker.address();
        admin = AdminClients.admin(addr);
        admin.createAndUpdateTopicConfig(addr, new TopicConfig(TOPIC, 2, 2, 6));
        admin.createAndUpdateSubscriptionGroupConfig(addr, subscriptionGroup(OFFLINE_GROUP));
        producer = AdminClients.producer(addr, PRODUCER_GROUP);
        for (int i = 0; i < 6; i++) {
            SendResult r = producer.send(new Message(TOPIC, "TagD", "db-key-" + i, ("db-body-" + i).getBytes(StandardCharsets.UTF_8)));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            sent.add(r);
        }
        consumer = new DefaultMQPushConsumer(PUSH_GROUP);
        consumer.setNamesrvAddr(addr);
        consumer.setInstanceName(AdminClients.instanceName());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setPersistConsumerOffsetInterval(1000);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            consumed.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> consumed.size() >= sent.size());
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.examineConsumeStats(PUSH_GROUP).computeTotalDiff() == 0);
        for (MessageQueue queue : admin.examineConsumeStats(PUSH_GROUP).getOffsetTable().keySet()) {
            admin.updateConsumeOffset(addr, OFFLINE_GROUP, queue, admin.maxOffset(queue));
        }
    }

    @AfterAll
    static void stop() {
        if (consumer != null) {
            consumer.shutdown();
        }
        if (producer != null) {
            producer.shutdown();
        }
        if (admin != null) {
            admin.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    static SubscriptionGroupConfig subscriptionGroup(String name) {
        SubscriptionGroupConfig config = new SubscriptionGroupConfig();
        config.setGroupName(name);
        return config;
    }

    static String clientId() throws Exception {
        return admin.examineConsumerConnectionInfo(PUSH_GROUP).getConnectionSet().iterator().next().getClientId();
    }

    // ---- cluster page ----

    @Test
    void clusterPage_examineBrokerClusterInfo_fetchBrokerRuntimeStats() throws Exception {
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        assertEquals(Set.of("broker-a"), cluster.getClusterAddrTable().get("DefaultCluster"));
        assertEquals(addr, cluster.getBrokerAddrTable().get("broker-a").getBrokerAddrs().get(0L));

        KVTable runtime = admin.fetchBrokerRuntimeStats(addr);
        assertNotNull(runtime.getTable().get("brokerVersionDesc"), runtime.getTable().toString());
        assertEquals(String.valueOf(sent.size()), runtime.getTable().get("msgPutTotalTodayNow"), runtime.getTable().toString());
    }

    // ---- topic page ----

    @Test
    void topicPage_fetchAllTopicList_examineTopicRouteInfo_examineTopicStats_examineTopicConfig() throws Exception {
        assertTrue(admin.fetchAllTopicList().getTopicList().contains(TOPIC));

        TopicRouteData route = admin.examineTopicRouteInfo(TOPIC);
        assertEquals(1, route.getQueueDatas().size(), route.toString());
        assertEquals(2, route.getQueueDatas().get(0).getReadQueueNums(), route.toString());
        assertEquals("broker-a", route.getQueueDatas().get(0).getBrokerName(), route.toString());

        TopicStatsTable stats = admin.examineTopicStats(TOPIC);
        assertEquals(2, stats.getOffsetTable().size(), stats.getOffsetTable().toString());
        assertEquals(sent.size(), stats.getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum());

        TopicConfig config = admin.examineTopicConfig(addr, TOPIC);
        assertEquals(TOPIC, config.getTopicName());
        assertEquals(2, config.getReadQueueNums());
        assertEquals(6, config.getPerm());
    }

    @Test
    void topicPage_createAndUpdateTopicConfig() throws Exception {
        admin.createAndUpdateTopicConfig(addr, new TopicConfig("DbCreated", 4, 4, 6));
        assertEquals(4, admin.examineTopicConfig(addr, "DbCreated").getWriteQueueNums());
        assertEquals(4, admin.examineTopicRouteInfo("DbCreated").getQueueDatas().get(0).getWriteQueueNums());
        assertTrue(admin.getUserTopicConfig(addr, false, 10_000).getTopicConfigTable().containsKey("DbCreated"));
    }

    /** The admin API's deleteTopic also deletes the topic's ORDER_TOPIC_CONFIG entry (DELETE_KV_CONFIG). */
    @Test
    void namesrv_deleteTopic() throws Exception {
        admin.createAndUpdateTopicConfig(addr, new TopicConfig("DbDeleted", 4, 4, 6));
        admin.deleteTopic("DbDeleted", "DefaultCluster");
        assertFalse(admin.fetchAllTopicList().getTopicList().contains("DbDeleted"));
        assertFalse(admin.getUserTopicConfig(addr, false, 10_000).getTopicConfigTable().containsKey("DbDeleted"));
    }

    @Test
    void topicPage_queryTopicConsumeByWho() throws Exception {
        GroupList groups = admin.queryTopicConsumeByWho(TOPIC);
        assertTrue(groups.getGroupList().contains(PUSH_GROUP), groups.getGroupList().toString());
        assertTrue(groups.getGroupList().contains(OFFLINE_GROUP), groups.getGroupList().toString());
    }

    // ---- consumer page ----

    @Test
    void consumerPage_examineConsumeStats_examineConsumerConnectionInfo() throws Exception {
        ConsumeStats stats = admin.examineConsumeStats(PUSH_GROUP);
        assertEquals(2, stats.getOffsetTable().size(), stats.getOffsetTable().toString());
        assertEquals(0, stats.computeTotalDiff());
        assertEquals(sent.size(), stats.getOffsetTable().values().stream().mapToLong(o -> o.getConsumerOffset()).sum());

        ConsumerConnection connection = admin.examineConsumerConnectionInfo(PUSH_GROUP);
        assertEquals(1, connection.getConnectionSet().size());
        assertTrue(connection.getSubscriptionTable().containsKey(TOPIC), connection.getSubscriptionTable().toString());
        assertEquals("CLUSTERING", connection.getMessageModel().name());
    }

    @Test
    void consumerPage_getConsumerRunningInfo() throws Exception {
        ConsumerRunningInfo info = admin.getConsumerRunningInfo(PUSH_GROUP, clientId(), false);
        assertTrue(info.getSubscriptionSet().stream().anyMatch(s -> s.getTopic().equals(TOPIC)), info.toString());
        assertEquals("CONSUME_PASSIVELY", info.getProperties().getProperty(ConsumerRunningInfo.PROP_CONSUME_TYPE));
        assertTrue(info.getMqTable().keySet().stream().anyMatch(q -> q.getTopic().equals(TOPIC)), info.toString());
    }

    @Test
    void consumerPage_createAndUpdateSubscriptionGroupConfig_examine_getAll_delete() throws Exception {
        SubscriptionGroupConfig config = subscriptionGroup("cg-db-created");
        config.setRetryMaxTimes(7);
        admin.createAndUpdateSubscriptionGroupConfig(addr, config);
        assertEquals(7, admin.examineSubscriptionGroupConfig(addr, "cg-db-created").getRetryMaxTimes());

        SubscriptionGroupWrapper user = admin.getUserSubscriptionGroup(addr, 10_000);
        assertTrue(user.getSubscriptionGroupTable().containsKey("cg-db-created"));
        assertFalse(user.getSubscriptionGroupTable().containsKey("TOOLS_CONSUMER"), "system groups are not the user's");
        SubscriptionGroupWrapper all = admin.getAllSubscriptionGroup(addr, 10_000);
        assertTrue(all.getSubscriptionGroupTable().containsKey("cg-db-created"));
        assertTrue(all.getSubscriptionGroupTable().keySet().containsAll(user.getSubscriptionGroupTable().keySet()));

        admin.deleteSubscriptionGroup(addr, "cg-db-created", true);
        assertFalse(admin.getAllSubscriptionGroup(addr, 10_000).getSubscriptionGroupTable().containsKey("cg-db-created"));
    }

    // ---- producer page ----

    @Test
    void producerPage_examineProducerConnectionInfo_getAllProducerInfo() throws Exception {
        ProducerConnection connection = admin.examineProducerConnectionInfo(PRODUCER_GROUP, TOPIC);
        assertEquals(1, connection.getConnectionSet().size(), connection.getConnectionSet().toString());

        ProducerTableInfo producers = admin.getAllProducerInfo(addr);
        assertTrue(producers.getData().containsKey(PRODUCER_GROUP), producers.getData().keySet().toString());
    }

    // ---- message page ----

    @Test
    void messagePage_viewMessage_queryMessage_queryMessageByUniqKey() throws Exception {
        SendResult third = sent.get(2);
        MessageExt byId = admin.viewMessage(TOPIC, third.getMsgId());
        assertEquals("db-body-2", new String(byId.getBody(), StandardCharsets.UTF_8));
        MessageExt byOffsetId = admin.viewMessage(third.getOffsetMsgId());
        assertEquals("db-key-2", byOffsetId.getKeys());

        QueryResult byKey = admin.queryMessage(TOPIC, "db-key-4", 32, 0, Long.MAX_VALUE);
        assertEquals(1, byKey.getMessageList().size(), byKey.toString());
        assertEquals(sent.get(4).getMsgId(), byKey.getMessageList().get(0).getMsgId());

        QueryResult byUniqKey = admin.queryMessageByUniqKey(TOPIC, sent.get(1).getMsgId(), 32, 0, Long.MAX_VALUE);
        assertFalse(byUniqKey.getMessageList().isEmpty());
        assertEquals("db-body-1", new String(byUniqKey.getMessageList().get(0).getBody(), StandardCharsets.UTF_8));
    }

    @Test
    void messagePage_messageTrackDetail() throws Exception {
        MessageExt message = admin.viewMessage(TOPIC, sent.get(0).getMsgId());
        List<MessageTrack> tracks = admin.messageTrackDetail(message);
        MessageTrack push = tracks.stream().filter(t -> t.getConsumerGroup().equals(PUSH_GROUP)).findFirst()
            .orElseThrow(() -> new AssertionError(tracks.toString()));
        assertEquals(TrackType.CONSUMED, push.getTrackType(), tracks.toString());
        // a group no consumer ever joined has no retry topic, so the client cannot tell whether it is online
        // (RocketMQ answers the same): listed, not consumed
        MessageTrack offline = tracks.stream().filter(t -> t.getConsumerGroup().equals(OFFLINE_GROUP)).findFirst()
            .orElseThrow(() -> new AssertionError(tracks.toString()));
        assertTrue(offline.getTrackType() != TrackType.CONSUMED, tracks.toString());
    }

    @Test
    void messagePage_consumeMessageDirectly() throws Exception {
        int before = consumed.size();
        ConsumeMessageDirectlyResult result = admin.consumeMessageDirectly(PUSH_GROUP, clientId(), TOPIC, sent.get(3).getMsgId());
        assertEquals(CMResult.CR_SUCCESS, result.getConsumeResult(), result.toString());
        assertEquals(before + 1, consumed.size());
        assertEquals("db-key-3", consumed.get(consumed.size() - 1).getKeys());
    }

    @Test
    void messagePage_queryConsumeTimeSpan() throws Exception {
        List<QueueTimeSpan> spans = admin.queryConsumeTimeSpan(TOPIC, PUSH_GROUP);
        assertEquals(2, spans.size(), spans.toString());
        for (QueueTimeSpan span : spans) {
            assertTrue(span.getMinTimeStamp() > 0 && span.getMaxTimeStamp() >= span.getMinTimeStamp(), span.toString());
            assertEquals(0, span.getDelayTime(), span.toString());
        }
    }

    // ---- broker configuration (26) ----

    @Test
    void brokerConfig_getBrokerConfig() throws Exception {
        Properties config = admin.getBrokerConfig(addr);
        assertEquals("broker-a", config.getProperty("brokerName"), config.toString());
        assertEquals("DefaultCluster", config.getProperty("brokerClusterName"), config.toString());
    }

    // ---- statistics (315) ----

    @Test
    void stats_viewBrokerStatsData() throws Exception {
        // the minute window: an item counts from the first 10 s sample after its first event (as in RocketMQ)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BrokerStatsData put = admin.viewBrokerStatsData(addr, "TOPIC_PUT_NUMS", TOPIC);
            assertTrue(put.getStatsMinute().getSum() >= sent.size(), String.valueOf(put.getStatsMinute().getSum()));
            BrokerStatsData got = admin.viewBrokerStatsData(addr, "GROUP_GET_NUMS", TOPIC + "@" + PUSH_GROUP);
            assertTrue(got.getStatsMinute().getSum() >= sent.size(), String.valueOf(got.getStatsMinute().getSum()));
        });
    }

    // ---- offsets (222) ----

    @Test
    void offsets_resetOffsetByTimestamp() throws Exception {
        Map<MessageQueue, Long> reset = admin.resetOffsetByTimestamp(TOPIC, OFFLINE_GROUP, 0, true);
        assertEquals(2, reset.size(), reset.toString());
        assertTrue(reset.values().stream().allMatch(offset -> offset == 0), reset.toString());
        // with the topic: a group never online has no %RETRY% route, where the admin client looks first
        assertEquals(sent.size(), admin.examineConsumeStats(OFFLINE_GROUP, TOPIC).computeTotalDiff());
    }
}
