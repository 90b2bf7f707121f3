package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.stats.BrokerStats;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.testing.TestStores;
import io.basalt.store.StoreConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin processors on a real (empty) store and real topic and offset files: answers and error
 * paths, read back with the official 5.2.0 body classes.
 */
class AdminProcessorsTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private MessageStore store;
    private TopicConfigManager topics;
    private ConsumerOffsetManager offsets;
    private TopicAdminProcessor topicAdmin;
    private ConsumerAdminProcessor consumerAdmin;
    private final java.util.concurrent.atomic.AtomicLong clockMs = new java.util.concurrent.atomic.AtomicLong(1_000_000);
    private final BrokerStats brokerStats = new BrokerStats(clockMs::get, "DefaultCluster", topic -> false);
    private QueryMessageProcessor query;
    private NameServerTopicProcessor nameServer;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).mappedFileSizeConsumeQueue(6000).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        ClientManager clients = new ClientManager(120_000, System::currentTimeMillis);
        topicAdmin = new TopicAdminProcessor("broker-a", topics, offsets, store);
        consumerAdmin = new ConsumerAdminProcessor("broker-a", topics, offsets, clients, store, brokerStats.groupGets());
        query = new QueryMessageProcessor(store);
        nameServer = new NameServerTopicProcessor("DefaultCluster", topics);
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
    void createUpdateAndDeleteATopic() throws Exception {
        Map<String, String> create = Map.of("topic", "TopicA", "readQueueNums", "3", "writeQueueNums", "2", "perm", "6",
            "topicFilterType", "SINGLE_TAG", "attributes", "+message.type=NORMAL");
        assertEquals(ResponseCode.SUCCESS, call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC, create).code());
        assertEquals(3, topics.get("TopicA").readQueueNums());
        assertEquals(Map.of("message.type", "NORMAL"), topics.get("TopicA").attributes());

        RemotingCommand config = call(topicAdmin, RequestCode.GET_TOPIC_CONFIG, Map.of("topic", "TopicA"));
        var official = RemotingSerializable.decode(config.body(), org.apache.rocketmq.common.TopicConfig.class);
        assertEquals(2, official.getWriteQueueNums());

        RemotingCommand all = call(topicAdmin, RequestCode.GET_ALL_TOPIC_CONFIG, Map.of());
        var wrapper = RemotingSerializable.decode(all.body(),
            org.apache.rocketmq.remoting.protocol.body.TopicConfigSerializeWrapper.class);
        assertTrue(wrapper.getTopicConfigTable().containsKey("TopicA"));
        assertTrue(wrapper.getTopicConfigTable().containsKey("TBW102"));

        RemotingCommand stats = call(topicAdmin, RequestCode.GET_TOPIC_STATS_INFO, Map.of("topic", "TopicA"));
        var table = RemotingSerializable.decode(stats.body(), org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable.class);
        assertEquals(2, table.getOffsetTable().size());

        assertEquals(ResponseCode.SUCCESS, call(topicAdmin, RequestCode.DELETE_TOPIC_IN_BROKER, Map.of("topic", "TopicA")).code());
        assertEquals(null, topics.get("TopicA"));
        var list = RemotingSerializable.decode(call(nameServer, RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, Map.of()).body(),
            org.apache.rocketmq.remoting.protocol.body.TopicList.class);
        assertEquals(java.util.Set.of("TBW102"), list.getTopicList());
    }

    @Test
    void aTopicThatCannotBePersistedIsASystemErrorNamingTheFile() throws Exception {
        // a directory where topics.json's temporary file goes: every store of the file fails
        java.nio.file.Files.createDirectories(dir.resolve("config/topics.json.tmp/blocker"));
        RemotingCommand failed = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC,
            Map.of("topic", "TopicA", "readQueueNums", "1", "writeQueueNums", "1", "perm", "6"));
        assertEquals(ResponseCode.SYSTEM_ERROR, failed.code());
        assertTrue(failed.remark().startsWith("persisting failed: ") && failed.remark().contains("topics.json"),
            failed.remark());
        assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, call(topicAdmin, RequestCode.SEND_MESSAGE, Map.of()).code());
    }

    @Test
    void badTopicRequestsAreAnsweredWithTheirReason() throws Exception {
        RemotingCommand missing = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC, Map.of("topic", "TopicA"));
        assertEquals(ResponseCode.SYSTEM_ERROR, missing.code());
        assertEquals("the custom field <readQueueNums> is null", missing.remark());

        RemotingCommand notNumber = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC,
            Map.of("topic", "TopicA", "readQueueNums", "x", "writeQueueNums", "1", "perm", "6"));
        assertTrue(notNumber.remark().contains("readQueueNums"), notNumber.remark());

        RemotingCommand illegal = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC,
            Map.of("topic", "bad topic", "readQueueNums", "1", "writeQueueNums", "1", "perm", "6"));
        assertEquals(ResponseCode.SYSTEM_ERROR, illegal.code());
        assertTrue(illegal.remark().contains("illegal characters"), illegal.remark());

        RemotingCommand system = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC,
            Map.of("topic", "TBW102", "readQueueNums", "1", "writeQueueNums", "1", "perm", "6"));
        assertEquals("The topic[TBW102] is conflict with system topic.", system.remark());

        RemotingCommand attributes = call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC,
            Map.of("topic", "TopicA", "readQueueNums", "1", "writeQueueNums", "1", "perm", "6", "attributes", "oops"));
        assertTrue(attributes.remark().contains("oops"), attributes.remark());
        assertEquals(null, topics.get("TopicA"));

        assertEquals(ResponseCode.TOPIC_NOT_EXIST,
            call(topicAdmin, RequestCode.GET_TOPIC_STATS_INFO, Map.of("topic", "Nope")).code());
        assertEquals(ResponseCode.TOPIC_NOT_EXIST, call(topicAdmin, RequestCode.GET_TOPIC_CONFIG, Map.of("topic", "Nope")).code());
        assertEquals(ResponseCode.SYSTEM_ERROR,
            call(topicAdmin, RequestCode.DELETE_TOPIC_IN_BROKER, Map.of("topic", "TBW102")).code());
        assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, call(topicAdmin, RequestCode.GET_BROKER_CONFIG, Map.of()).code());
    }

    @Test
    void consumerRequestsOnAnUnknownGroup() throws Exception {
        RemotingCommand stats = call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of("consumerGroup", "cg"));
        var decoded = RemotingSerializable.decode(stats.body(), org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertTrue(decoded.getOffsetTable().isEmpty());

        RemotingCommand connections = call(consumerAdmin, RequestCode.GET_CONSUMER_CONNECTION_LIST, Map.of("consumerGroup", "cg"));
        assertEquals(ResponseCode.CONSUMER_NOT_ONLINE, connections.code());
        assertEquals("the consumer group[cg] not online", connections.remark());

        RemotingCommand running = call(consumerAdmin, RequestCode.GET_CONSUMER_RUNNING_INFO,
            Map.of("consumerGroup", "cg", "clientId", "client-1"));
        assertEquals(ResponseCode.SYSTEM_ERROR, running.code());
        assertEquals("The Consumer <cg> <client-1> not online", running.remark());
        assertEquals(ResponseCode.SYSTEM_ERROR,
            call(consumerAdmin, RequestCode.CONSUME_MESSAGE_DIRECTLY, Map.of("consumerGroup", "cg")).code());

        offsets.commitOffset("127.0.0.1", "cg", "TBW102", 1, 0);
        var groups = RemotingSerializable.decode(
            call(consumerAdmin, RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, Map.of("topic", "TBW102")).body(),
            org.apache.rocketmq.remoting.protocol.body.GroupList.class);
        assertEquals(java.util.Set.of("cg"), groups.getGroupList());
        var withOffsets = RemotingSerializable.decode(
            call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of("consumerGroup", "cg")).body(),
            org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertEquals(4, withOffsets.getOffsetTable().size());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of()).code());
    }

    @Test
    void consumeTpsIsTheSumOfTheGroupsMinuteTpsOverItsTopics() throws Exception {
        topics.createIfAbsent("%RETRY%cg", 1, 6);
        offsets.commitOffset("127.0.0.1", "cg", "TBW102", 0, 0);
        offsets.commitOffset("127.0.0.1", "cg", "%RETRY%cg", 0, 0);
        brokerStats.delivered("TBW102", "cg", 32, 32 * 100L);
        brokerStats.delivered("TBW102", "cg", 18, 18 * 100L);
        brokerStats.delivered("%RETRY%cg", "cg", 10, 10 * 100L);
        brokerStats.delivered("TBW102", "other-group", 1000, 1000 * 100L);
        var beforeSampling = RemotingSerializable.decode(
            call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of("consumerGroup", "cg")).body(),
            org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertEquals(0.0, beforeSampling.getConsumeTps(), "nothing sampled yet");
        brokerStats.sample();
        // 60 messages over the synthetic first interval of 10 s
        var all = RemotingSerializable.decode(
            call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of("consumerGroup", "cg")).body(),
            org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertEquals(6.0, all.getConsumeTps(), 1e-9);
        var oneTopic = RemotingSerializable.decode(
            call(consumerAdmin, RequestCode.GET_CONSUME_STATS, Map.of("consumerGroup", "cg", "topic", "TBW102")).body(),
            org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertEquals(5.0, oneTopic.getConsumeTps(), 1e-9);
    }

    @Test
    void lookupsOfMissingMessages() throws Exception {
        RemotingCommand byKey = call(query, RequestCode.QUERY_MESSAGE, Map.of("topic", "TBW102", "key", "k", "maxNum", "10000",
            "beginTimestamp", "0", "endTimestamp", Long.toString(Long.MAX_VALUE)));
        assertEquals(ResponseCode.QUERY_NOT_FOUND, byKey.code());
        assertEquals("can not find message, maybe time range not correct", byKey.remark());
        assertTrue(byKey.extFields().containsKey("indexLastUpdateTimestamp"));
        assertTrue(byKey.extFields().containsKey("indexLastUpdatePhyoffset"));

        RemotingCommand byOffset = call(query, RequestCode.VIEW_MESSAGE_BY_ID, Map.of("offset", "123456"));
        assertEquals(ResponseCode.SYSTEM_ERROR, byOffset.code());
        assertEquals("can not find message by the offset, 123456", byOffset.remark());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(query, RequestCode.VIEW_MESSAGE_BY_ID, Map.of("offset", "-1")).code());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(query, RequestCode.VIEW_MESSAGE_BY_ID, Map.of()).code());
    }

    @Test
    void runtimeInfoOfAnEmptyBroker() throws Exception {
        BrokerRuntimeStats stats = new BrokerRuntimeStats(() -> 0, () -> 0, System::currentTimeMillis, ZoneOffset.UTC);
        stats.doWork();
        BrokerRuntimeInfoProcessor processor = new BrokerRuntimeInfoProcessor(store, stats, dir, true,
            List.of(new BrokerRuntimeInfoProcessor.ExecutorQueue("send", () -> 3, 10_000, () -> 250),
                new BrokerRuntimeInfoProcessor.ExecutorQueue("pull", () -> 0, 100_000)));
        var table = RemotingSerializable.decode(call(processor, RequestCode.GET_BROKER_RUNTIME_INFO, Map.of()).body(),
            org.apache.rocketmq.remoting.protocol.body.KVTable.class).getTable();
        assertEquals("0", table.get("msgPutTotalTodayNow"));
        assertEquals("-1", table.get("earliestMessageTimeStamp"));
        assertEquals("0.00 0.00 0.00", table.get("putTps"));
        assertEquals("3", table.get("sendThreadPoolQueueSize"));
        assertEquals("10000", table.get("sendThreadPoolQueueCapacity"));
        assertEquals("250", table.get("sendThreadPoolQueueHeadWaitTimeMills"), "reported while requests wait");
        assertEquals("0", table.get("pullThreadPoolQueueHeadWaitTimeMills"));
        assertEquals("true", table.get("brokerActive"));
    }

    @Test
    void topicsByCluster() throws Exception {
        var ours = RemotingSerializable.decode(
            call(nameServer, RequestCode.GET_TOPICS_BY_CLUSTER, Map.of("cluster", "DefaultCluster")).body(),
            org.apache.rocketmq.remoting.protocol.body.TopicList.class);
        assertEquals(java.util.Set.of("TBW102"), ours.getTopicList());
        var other = RemotingSerializable.decode(
            call(nameServer, RequestCode.GET_TOPICS_BY_CLUSTER, Map.of("cluster", "Other")).body(),
            org.apache.rocketmq.remoting.protocol.body.TopicList.class);
        assertTrue(other.getTopicList().isEmpty());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(nameServer, RequestCode.GET_TOPICS_BY_CLUSTER, Map.of()).code());
    }
}
