package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.stats.BrokerStats;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.body.BrokerStatsData;
import org.apache.rocketmq.remoting.protocol.body.ConsumeStatsList;
import org.apache.rocketmq.remoting.protocol.body.QueryConsumeTimeSpanBody;
import org.apache.rocketmq.remoting.protocol.body.QuerySubscriptionResponseBody;
import org.apache.rocketmq.remoting.protocol.body.TopicList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VIEW_BROKER_STATS_DATA, GET_BROKER_CONSUME_STATS, the group queries (303, 343, 345) and
 * GET_SYSTEM_TOPIC_LIST_FROM_BROKER on a real (empty) store, read back with the official 5.2.0 body classes.
 */
class StatsAndQueryProcessorsTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private MessageStore store;
    private TopicConfigManager topics;
    private ConsumerOffsetManager offsets;
    private SubscriptionGroupManager groups;
    private final AtomicLong clockMs = new AtomicLong(1_000_000);
    private final BrokerStats stats = new BrokerStats(clockMs::get, "DefaultCluster", t -> false);
    private ConsumerAdminProcessor consumerAdmin;
    private ConsumerQueryProcessor queries;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).mappedFileSizeConsumeQueue(6000).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        ClientManager clients = new ClientManager(120_000, System::currentTimeMillis);
        consumerAdmin = new ConsumerAdminProcessor("broker-a", topics, offsets, clients, store, stats.groupGets());
        queries = new ConsumerQueryProcessor("broker-a", "10.0.0.1:10911", topics, offsets, clients, store,
            clockMs::get, ZoneOffset.UTC);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private static RemotingCommand call(RequestProcessor processor, int code, Map<String, String> fields) throws Exception {
        RemotingCommand request = RemotingCommand.request(code);
        fields.forEach(request::putExtField);
        return processor.processRequest(CONTEXT, request).get();
    }

    @Test
    void viewBrokerStatsDataAnswersTheThreeWindowsOrRocketMqsError() throws Exception {
        BrokerStatsProcessor processor = new BrokerStatsProcessor(stats);
        stats.stored("T", 8, 800);
        stats.stored("T", 2, 200);
        stats.sample();
        RemotingCommand answer = call(processor, RequestCode.VIEW_BROKER_STATS_DATA,
            Map.of("statsName", "TOPIC_PUT_NUMS", "statsKey", "T"));
        assertEquals(ResponseCode.SUCCESS, answer.code());
        BrokerStatsData data = RemotingSerializable.decode(answer.body(), BrokerStatsData.class);
        assertEquals(10, data.getStatsMinute().getSum());
        assertEquals(1.0, data.getStatsMinute().getTps(), 1e-9);
        assertEquals(5.0, data.getStatsMinute().getAvgpt(), 1e-9);
        assertEquals(10, data.getStatsHour().getSum());
        assertEquals(10, data.getStatsDay().getSum());

        RemotingCommand unknownKey = call(processor, RequestCode.VIEW_BROKER_STATS_DATA,
            Map.of("statsName", "GROUP_GET_NUMS", "statsKey", "T@nobody"));
        assertEquals(ResponseCode.SYSTEM_ERROR, unknownKey.code());
        assertEquals("The stats GROUP_GET_NUMS T@nobody not exist", unknownKey.remark());
        RemotingCommand notKept = call(processor, RequestCode.VIEW_BROKER_STATS_DATA,
            Map.of("statsName", "QUEUE_PUT_NUMS", "statsKey", "T@0"));
        assertEquals(ResponseCode.SYSTEM_ERROR, notKept.code());
        assertTrue(notKept.remark().contains("does not keep the stats QUEUE_PUT_NUMS"), notKept.remark());
    }

    @Test
    void brokerConsumeStatsListsEveryGroupsTopics() throws Exception {
        topics.createIfAbsent("T", 2, 6);
        topics.createIfAbsent("O", 1, 6);
        groups.findOrAutoCreate("cg");
        groups.findOrAutoCreate("idle");
        offsets.commitOffset("127.0.0.1", "cg", "T", 0, 0);
        stats.delivered("T", "cg", 30, 3000);
        stats.sample();
        BrokerConsumeStatsProcessor processor = BrokerConsumeStatsProcessor.of("10.0.0.1:10911", topics, groups,
            consumerAdmin);
        RemotingCommand answer = call(processor, RequestCode.GET_BROKER_CONSUME_STATS, Map.of("isOrder", "false"));
        assertEquals(ResponseCode.SUCCESS, answer.code());
        ConsumeStatsList list = RemotingSerializable.decode(answer.body(), ConsumeStatsList.class);
        assertEquals("10.0.0.1:10911", list.getBrokerAddr());
        Map<String, List<ConsumeStats>> byGroup = new java.util.HashMap<>();
        list.getConsumeStatsList().forEach(byGroup::putAll);
        assertEquals(1, byGroup.get("cg").size());
        assertEquals(2, byGroup.get("cg").get(0).getOffsetTable().size(), "the topic's write queues");
        assertEquals(3.0, byGroup.get("cg").get(0).getConsumeTps(), 1e-9);
        assertTrue(byGroup.get("idle").isEmpty());
        assertEquals(0, list.getTotalInflightDiff());

        RemotingCommand orderOnly = call(processor, RequestCode.GET_BROKER_CONSUME_STATS, Map.of("isOrder", "true"));
        ConsumeStatsList none = RemotingSerializable.decode(orderOnly.body(), ConsumeStatsList.class);
        none.getConsumeStatsList().forEach(m -> m.values().forEach(l -> assertTrue(l.isEmpty())));
    }

    @Test
    void topicsAndSubscriptionOfAGroup() throws Exception {
        topics.createIfAbsent("T", 1, 6);
        offsets.commitOffset("127.0.0.1", "cg", "T", 0, 0);
        offsets.commitOffset("127.0.0.1", "cg", "%RETRY%cg", 0, 0);
        offsets.commitOffset("127.0.0.1", "other", "U", 0, 0);
        TopicList list = RemotingSerializable.decode(
            call(queries, RequestCode.QUERY_TOPICS_BY_CONSUMER, Map.of("group", "cg")).body(), TopicList.class);
        assertEquals(Set.of("T", "%RETRY%cg"), list.getTopicList());
        assertEquals("10.0.0.1:10911", list.getBrokerAddr());

        QuerySubscriptionResponseBody offline = RemotingSerializable.decode(
            call(queries, RequestCode.QUERY_SUBSCRIPTION_BY_CONSUMER, Map.of("group", "cg", "topic", "T")).body(),
            QuerySubscriptionResponseBody.class);
        assertEquals("cg", offline.getGroup());
        assertEquals("T", offline.getTopic());
        assertNull(offline.getSubscriptionData(), "the group is offline");
    }

    @Test
    void consumeTimeSpanOfAnEmptyTopicAndOfAMissingOne() throws Exception {
        topics.createIfAbsent("T", 2, 6);
        QueryConsumeTimeSpanBody body = RemotingSerializable.decode(
            call(queries, RequestCode.QUERY_CONSUME_TIME_SPAN, Map.of("group", "cg", "topic", "T")).body(),
            QueryConsumeTimeSpanBody.class);
        assertEquals(2, body.getConsumeTimeSpanSet().size());
        assertEquals("broker-a", body.getConsumeTimeSpanSet().get(0).getMessageQueue().getBrokerName());
        assertEquals(0, body.getConsumeTimeSpanSet().get(0).getDelayTime());
        RemotingCommand missing = call(queries, RequestCode.QUERY_CONSUME_TIME_SPAN, Map.of("group", "cg", "topic", "nope"));
        assertEquals(ResponseCode.TOPIC_NOT_EXIST, missing.code());
        assertEquals("topic[nope] not exist", missing.remark());
    }

    @Test
    void systemTopicListNamesTheReservedTopics() throws Exception {
        TopicList list = RemotingSerializable.decode(call(new SystemTopicListProcessor(topics),
            RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER, Map.of()).body(), TopicList.class);
        assertTrue(list.getTopicList().containsAll(Set.of("TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC",
            "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT")), list.getTopicList().toString());
        assertNull(list.getBrokerAddr());
    }
}
