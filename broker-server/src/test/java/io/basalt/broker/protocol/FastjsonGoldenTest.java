package io.basalt.broker.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import io.basalt.broker.topic.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.junit.jupiter.api.Test;

/**
 * Every body Basalt writes is read by the official 5.2.0 classes through fastjson
 * ({@code RemotingSerializable.decode}), and every body they write is read by Basalt.
 */
class FastjsonGoldenTest {

    private static final MessageQueue Q0 = new MessageQueue("TopicA", "broker-a", 0);
    private static final MessageQueue Q1 = new MessageQueue("TopicA", "broker-a", 1);

    private static org.apache.rocketmq.common.message.MessageQueue official(MessageQueue q) {
        return new org.apache.rocketmq.common.message.MessageQueue(q.topic(), q.brokerName(), q.queueId());
    }

    private static MessageQueue basalt(org.apache.rocketmq.common.message.MessageQueue q) {
        return new MessageQueue(q.getTopic(), q.getBrokerName(), q.getQueueId());
    }

    @Test
    void routeBodiesAreReadByTheOfficialClient() {
        var broker = new RouteBodies.BrokerIdentity("DefaultCluster", "broker-a", 0L, "127.0.0.1:10911");
        var decoded = RemotingSerializable.decode(RouteBodies.topicRouteData(broker, new RouteBodies.QueueRoute(4, 8, 6, 0)),
            org.apache.rocketmq.remoting.protocol.route.TopicRouteData.class);
        var queueData = decoded.getQueueDatas().get(0);
        assertEquals("broker-a", queueData.getBrokerName());
        assertEquals(4, queueData.getReadQueueNums());
        assertEquals(8, queueData.getWriteQueueNums());
        assertEquals(6, queueData.getPerm());
        var brokerData = decoded.getBrokerDatas().get(0);
        assertEquals("DefaultCluster", brokerData.getCluster());
        assertEquals("127.0.0.1:10911", brokerData.getBrokerAddrs().get(0L));
        assertEquals("127.0.0.1:10911", brokerData.selectBrokerAddr());
        assertTrue(decoded.getFilterServerTable().isEmpty());

        var cluster = RemotingSerializable.decode(RouteBodies.clusterInfo(broker),
            org.apache.rocketmq.remoting.protocol.body.ClusterInfo.class);
        assertEquals("127.0.0.1:10911", cluster.getBrokerAddrTable().get("broker-a").getBrokerAddrs().get(0L));
        assertEquals(Set.of("broker-a"), cluster.getClusterAddrTable().get("DefaultCluster"));

        var consumers = RemotingSerializable.decode(RouteBodies.consumerIdList(List.of("c1", "c2")),
            org.apache.rocketmq.remoting.protocol.header.GetConsumerListByGroupResponseBody.class);
        assertEquals(List.of("c1", "c2"), consumers.getConsumerIdList());
    }

    @Test
    void routeDataIsTheStandardJsonANameServerWrites() {
        var broker = new RouteBodies.BrokerIdentity("DefaultCluster", "broker-a", 0L, "127.0.0.1:10911");
        var brokerData = new org.apache.rocketmq.remoting.protocol.route.BrokerData("DefaultCluster", "broker-a",
            new HashMap<>(Map.of(0L, "127.0.0.1:10911", 1L, "127.0.0.1:10921")));
        var queueData = new org.apache.rocketmq.remoting.protocol.route.QueueData();
        queueData.setBrokerName("broker-a");
        queueData.setReadQueueNums(4);
        queueData.setWriteQueueNums(8);
        queueData.setPerm(6);
        var official = new org.apache.rocketmq.remoting.protocol.route.TopicRouteData();
        official.setBrokerDatas(new ArrayList<>(List.of(brokerData)));
        official.setQueueDatas(new ArrayList<>(List.of(queueData)));
        official.setFilterServerTable(new HashMap<>());
        // what a 5.x NameServer sends a client of version >= V4_9_4 (ClientRequestProcessor)
        byte[] standard = official.encode(com.alibaba.fastjson.serializer.SerializerFeature.BrowserCompatible,
            com.alibaba.fastjson.serializer.SerializerFeature.QuoteFieldNames,
            com.alibaba.fastjson.serializer.SerializerFeature.SkipTransientField,
            com.alibaba.fastjson.serializer.SerializerFeature.MapSortField);
        assertEquals(new String(standard, StandardCharsets.UTF_8), new String(RouteBodies.topicRouteData(broker,
            Map.of(1L, "127.0.0.1:10921", 0L, "127.0.0.1:10911"), new RouteBodies.QueueRoute(4, 8, 6, 0)), StandardCharsets.UTF_8));
    }

    @Test
    void heartbeatWrittenByTheOfficialClientIsRead() throws Exception {
        var subscription = new org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData("TopicA", "TagA || TagB");
        subscription.getTagsSet().addAll(Set.of("TagA", "TagB"));
        subscription.getCodeSet().addAll(Set.of("TagA".hashCode(), "TagB".hashCode()));
        var consumer = new org.apache.rocketmq.remoting.protocol.heartbeat.ConsumerData();
        consumer.setGroupName("cg");
        consumer.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        consumer.setMessageModel(MessageModel.CLUSTERING);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.getSubscriptionDataSet().add(subscription);
        var producer = new org.apache.rocketmq.remoting.protocol.heartbeat.ProducerData();
        producer.setGroupName("pg");
        var heartbeat = new org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData();
        heartbeat.setClientID("127.0.0.1@123#456");
        heartbeat.getConsumerDataSet().add(consumer);
        heartbeat.getProducerDataSet().add(producer);
        heartbeat.setHeartbeatFingerprint(77);

        HeartbeatData decoded = HeartbeatData.decode(heartbeat.encode());
        assertEquals("127.0.0.1@123#456", decoded.clientId());
        assertEquals(List.of("pg"), decoded.producerGroups());
        HeartbeatData.ConsumerData consumerData = decoded.consumers().get(0);
        assertEquals("cg", consumerData.groupName());
        assertEquals("CONSUME_PASSIVELY", consumerData.consumeType());
        assertEquals("CLUSTERING", consumerData.messageModel());
        assertEquals("CONSUME_FROM_FIRST_OFFSET", consumerData.consumeFromWhere());
        HeartbeatData.Subscription sub = consumerData.subscriptions().get(0);
        assertEquals("TopicA", sub.topic());
        assertEquals("TagA || TagB", sub.subString());
        assertEquals(subscription.getSubVersion(), sub.subVersion());
        assertEquals("TAG", sub.expressionType());
    }

    @Test
    void heartbeatWithAwkwardNamesIsReadAsWritten() throws Exception {
        String awkward = "g\u0001\u001f\u007f\u2028\"\\/é中\ud83d\ude00";
        var subscription = new org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData(awkward, "a || b");
        var consumer = new org.apache.rocketmq.remoting.protocol.heartbeat.ConsumerData();
        consumer.setGroupName(awkward);
        consumer.getSubscriptionDataSet().add(subscription);
        var heartbeat = new org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData();
        heartbeat.setClientID(awkward + "@1");
        heartbeat.getConsumerDataSet().add(consumer);
        HeartbeatData decoded = HeartbeatData.decode(heartbeat.encode());
        assertEquals(awkward + "@1", decoded.clientId());
        assertEquals(awkward, decoded.consumers().get(0).groupName());
        assertEquals(awkward, decoded.consumers().get(0).subscriptions().get(0).topic());
        assertEquals(List.of(), decoded.producerGroups());
    }

    @Test
    void lockBatchBodiesRoundTripWithTheOfficialClasses() {
        var request = new org.apache.rocketmq.remoting.protocol.body.LockBatchRequestBody();
        request.setConsumerGroup("cg");
        request.setClientId("127.0.0.1@1");
        request.getMqSet().add(official(Q0));
        request.getMqSet().add(official(Q1));
        LockBatchBody decoded = LockBatchBody.decode(request.encode());
        assertEquals("cg", decoded.consumerGroup());
        assertEquals("127.0.0.1@1", decoded.clientId());
        assertEquals(Set.of(Q0, Q1), decoded.mqSet());

        var unlock = new org.apache.rocketmq.remoting.protocol.body.UnlockBatchRequestBody();
        unlock.setConsumerGroup("cg");
        unlock.setClientId("c");
        unlock.getMqSet().add(official(Q1));
        assertEquals(Set.of(Q1), LockBatchBody.decode(unlock.encode()).mqSet());

        var response = RemotingSerializable.decode(LockBatchBody.lockedBody(List.of(Q0, Q1)),
            org.apache.rocketmq.remoting.protocol.body.LockBatchResponseBody.class);
        assertEquals(Set.of(official(Q0), official(Q1)), response.getLockOKMQSet());
        var officialResponse = new org.apache.rocketmq.remoting.protocol.body.LockBatchResponseBody();
        officialResponse.getLockOKMQSet().add(official(Q0));
        assertEquals(new String(officialResponse.encode(), StandardCharsets.UTF_8),
            new String(LockBatchBody.lockedBody(List.of(Q0)), StandardCharsets.UTF_8));
    }

    @Test
    void checkClientRequestBodyGivesTheExpressionType() throws Exception {
        var body = new org.apache.rocketmq.remoting.protocol.body.CheckClientRequestBody();
        body.setClientId("c");
        body.setGroup("g");
        var subscription = new org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData("TopicA", "a > 1");
        subscription.setExpressionType("SQL92");
        body.setSubscriptionData(subscription);
        assertEquals("SQL92", CheckClientRequestBody.decode(body.encode()).expressionType());
        assertEquals(new CheckClientRequestBody("c", "g", "SQL92", "a > 1"), CheckClientRequestBody.decode(body.encode()));
        body.setSubscriptionData(null);
        assertEquals(null, CheckClientRequestBody.decode(body.encode()).expressionType());
    }

    @Test
    void topicConfigTableRoundTripsWithTheOfficialWrapper() {
        TopicConfig plain = TopicConfig.of("TopicA", 4, 6);
        TopicConfig ordered = new TopicConfig("TopicB", 2, 3, 4, "MULTI_TAG", 1, true, Map.of("+message.type", "FIFO"));
        var wrapper = new TopicConfigSerializeWrapper(orderedMap("TopicA", plain, "TopicB", ordered), new DataVersion(0, 1700000000000L, 5));
        var decoded = RemotingSerializable.decode(wrapper.encode(),
            org.apache.rocketmq.remoting.protocol.body.TopicConfigSerializeWrapper.class);
        var officialB = decoded.getTopicConfigTable().get("TopicB");
        assertEquals(2, officialB.getReadQueueNums());
        assertEquals(3, officialB.getWriteQueueNums());
        assertEquals(4, officialB.getPerm());
        assertTrue(officialB.isOrder());
        assertEquals("FIFO", officialB.getAttributes().get("+message.type"));
        assertEquals(5, decoded.getDataVersion().getCounter().get());
        assertEquals(1700000000000L, decoded.getDataVersion().getTimestamp());

        TopicConfigSerializeWrapper back = TopicConfigSerializeWrapper.decode(decoded.encode());
        assertEquals(wrapper.dataVersion(), back.dataVersion());
        assertEquals(wrapper.topicConfigTable(), back.topicConfigTable());
        // topics.json as RocketMQ writes it: pretty-printed
        assertEquals(wrapper.topicConfigTable(), TopicConfigSerializeWrapper.decode(decoded.toJson(true).getBytes()).topicConfigTable());
    }

    @Test
    void kvTableIsReadByTheOfficialClient() {
        var decoded = RemotingSerializable.decode(new KVTable(Map.of("msgPutTotalTodayNow", "12", "brokerVersionDesc", "V5_2_0")).encode(),
            org.apache.rocketmq.remoting.protocol.body.KVTable.class);
        assertEquals("12", decoded.getTable().get("msgPutTotalTodayNow"));
        assertEquals("V5_2_0", decoded.getTable().get("brokerVersionDesc"));
    }

    @Test
    void topicStatsWithObjectKeysRoundTrip() {
        Map<MessageQueue, TopicOffset> offsets = orderedMap(Q0, new TopicOffset(0, 10, 1700000000000L), Q1, new TopicOffset(3, 7, 0));
        byte[] body = new TopicStatsTable(offsets).encode();
        assertTrue(new String(body).startsWith("{\"offsetTable\":{{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"TopicA\"}:{"),
            new String(body));
        var decoded = RemotingSerializable.decode(body, org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable.class);
        var q0 = decoded.getOffsetTable().get(official(Q0));
        assertEquals(10, q0.getMaxOffset());
        assertEquals(1700000000000L, q0.getLastUpdateTimestamp());
        assertEquals(3, decoded.getOffsetTable().get(official(Q1)).getMinOffset());

        assertEquals(offsets, TopicStatsTable.decode(decoded.encode()).offsetTable());
    }

    @Test
    void consumeStatsWithObjectKeysRoundTrip() {
        Map<MessageQueue, OffsetWrapper> offsets = orderedMap(Q0, new OffsetWrapper(10, 4, 5, 1700000000000L), Q1, new OffsetWrapper(7, 7, 7, 0));
        var decoded = RemotingSerializable.decode(new ConsumeStats(offsets, 12.5).encode(),
            org.apache.rocketmq.remoting.protocol.admin.ConsumeStats.class);
        assertEquals(6, decoded.computeTotalDiff());
        assertEquals(12.5, decoded.getConsumeTps());
        assertEquals(4, decoded.getOffsetTable().get(official(Q0)).getConsumerOffset());

        ConsumeStats back = ConsumeStats.decode(decoded.encode());
        assertEquals(offsets, back.offsetTable());
        assertEquals(12.5, back.consumeTps());
        assertEquals(Set.of(Q0, Q1), Set.copyOf(new ArrayList<>(back.offsetTable().keySet())));
        assertEquals(basalt(official(Q0)), Q0);
    }

    @Test
    void topicAndGroupListsRoundTrip() {
        var topics = RemotingSerializable.decode(new TopicList(Set.of("A", "B"), "127.0.0.1:10911").encode(),
            org.apache.rocketmq.remoting.protocol.body.TopicList.class);
        assertEquals(Set.of("A", "B"), topics.getTopicList());
        assertEquals("127.0.0.1:10911", topics.getBrokerAddr());
        assertEquals(new TopicList(Set.of("A", "B"), "127.0.0.1:10911"), TopicList.decode(topics.encode()));

        var groups = RemotingSerializable.decode(new GroupList(Set.of("g1")).encode(),
            org.apache.rocketmq.remoting.protocol.body.GroupList.class);
        assertEquals(Set.of("g1"), groups.getGroupList());
        assertEquals(new GroupList(Set.of("g1")), GroupList.decode(groups.encode()));
    }

    @Test
    void consumerConnectionIsReadByTheOfficialClient() {
        SubscriptionData sub = new SubscriptionData("TopicA", "*", Set.of(), Set.of(), 42L, "TAG", false);
        ConsumerConnection connection = new ConsumerConnection(
            Set.of(new Connection("client-1", "127.0.0.1:50000", "JAVA", 453)), Map.of("TopicA", sub),
            "CONSUME_PASSIVELY", "CLUSTERING", "CONSUME_FROM_LAST_OFFSET");
        var decoded = RemotingSerializable.decode(connection.encode(),
            org.apache.rocketmq.remoting.protocol.body.ConsumerConnection.class);
        var official = decoded.getConnectionSet().iterator().next();
        assertEquals("client-1", official.getClientId());
        assertEquals(LanguageCode.JAVA, official.getLanguage());
        assertEquals(453, official.getVersion());
        assertEquals("*", decoded.getSubscriptionTable().get("TopicA").getSubString());
        assertEquals(ConsumeType.CONSUME_PASSIVELY, decoded.getConsumeType());
        assertEquals(MessageModel.CLUSTERING, decoded.getMessageModel());
        assertEquals(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET, decoded.getConsumeFromWhere());
        assertEquals(connection, ConsumerConnection.decode(decoded.encode()));
    }

    @Test
    void registerBrokerBodyIsReadByTheOfficialNameServerInBothEncodings() throws Exception {
        TopicConfig a = TopicConfig.of("TopicA", 4, 6);
        TopicConfig b = new TopicConfig("TopicB", 2, 2, 6, "SINGLE_TAG", 0, false, Map.of("+message.type", "NORMAL"));
        var wrapper = new TopicConfigSerializeWrapper(orderedMap("TopicA", a, "TopicB", b), new DataVersion(0, 1700000000000L, 3));
        RegisterBrokerBody body = new RegisterBrokerBody(wrapper, List.of());
        for (boolean compressed : new boolean[] {false, true}) {
            var decoded = org.apache.rocketmq.remoting.protocol.body.RegisterBrokerBody.decode(body.encode(compressed), compressed,
                org.apache.rocketmq.common.MQVersion.Version.V5_2_0);
            var table = decoded.getTopicConfigSerializeWrapper().getTopicConfigTable();
            assertEquals(Set.of("TopicA", "TopicB"), table.keySet(), "compressed=" + compressed);
            assertEquals(4, table.get("TopicA").getWriteQueueNums());
            assertEquals("NORMAL", table.get("TopicB").getAttributes().get("+message.type"));
            assertEquals(3, decoded.getTopicConfigSerializeWrapper().getDataVersion().getCounter().get());
            assertTrue(decoded.getFilterServerList().isEmpty());

            RegisterBrokerBody back = RegisterBrokerBody.decode(decoded.encode(compressed), compressed);
            assertEquals(wrapper.topicConfigTable(), back.topicConfigSerializeWrapper().topicConfigTable());
            assertEquals(wrapper.dataVersion(), back.topicConfigSerializeWrapper().dataVersion());
        }
    }

    @Test
    void stringsAreEscapedAsFastjsonEscapesThem() {
        String tricky = "quote\" back\\ tab\t nl\n ctl\u0001 uni\u00e9\u4e2d";
        Map<String, String> table = new HashMap<>();
        table.put("k", tricky);
        byte[] ours = new KVTable(table).encode();
        var official = new org.apache.rocketmq.remoting.protocol.body.KVTable();
        official.setTable(new HashMap<>(table));
        assertEquals(new String(official.encode()), new String(ours));
        assertEquals(tricky, RemotingSerializable.decode(ours, org.apache.rocketmq.remoting.protocol.body.KVTable.class).getTable().get("k"));
        assertEquals(tricky, KVTable.decode(official.encode()).table().get("k"));
    }

    /** Every BMP char once (C0 controls, U+007F-U+009F, U+2028/U+2029, lone surrogates), then non-BMP ones. */
    private static String everyCharacter() {
        StringBuilder text = new StringBuilder();
        for (int c = 0; c <= 0xFFFF; c++) {
            text.append((char) c);
        }
        for (int codePoint = 0x10000; codePoint <= Character.MAX_CODE_POINT; codePoint += 251) {
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }

    @Test
    void everyCharacterInABodyIsWrittenAndReadAsFastjsonDoes() {
        String every = everyCharacter();
        for (String text : List.of(every, "", "\u007f\u0080\u009f", "\u2028\u2029", "\ud800", "é中\ud83d\ude00", "\"\\/")) {
            // one entry a table: HashMap order is not what is checked here
            for (Map<String, String> table : List.of(Map.of("k", text), Map.of(text + "#", "v"))) {
                var official = new org.apache.rocketmq.remoting.protocol.body.KVTable();
                official.setTable(new HashMap<>(table));
                byte[] theirs = official.encode();
                byte[] ours = new KVTable(table).encode();
                assertArrayEquals(theirs, ours);
                // a lone surrogate reaches the bytes as '?' on both sides; each reads the other's bytes alike
                var officialRead = RemotingSerializable.decode(theirs, org.apache.rocketmq.remoting.protocol.body.KVTable.class).getTable();
                assertEquals(officialRead, KVTable.decode(theirs).table());
                assertEquals(officialRead, RemotingSerializable.decode(ours, org.apache.rocketmq.remoting.protocol.body.KVTable.class).getTable());
            }
        }
    }

    @Test
    void awkwardQueueKeysAndDoublesInStatsAreWrittenAsFastjsonDoes() {
        String topic = "T\u0001\u001f\u007f\u2028\"\\/é中\ud83d\ude00";
        MessageQueue queue = new MessageQueue(topic, "broker-\u0085", 0);
        // 2.0E23: JDK 17's Double.toString gives 1.9999999999999998E23, fastjson the shortest form
        for (double tps : new double[] {0, 12.5, 0.1 + 0.2, 2e23, 1e-7, -1.5, Double.MAX_VALUE}) {
            var official = new org.apache.rocketmq.remoting.protocol.admin.ConsumeStats();
            var wrapper = new org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper();
            wrapper.setBrokerOffset(Long.MAX_VALUE);
            wrapper.setConsumerOffset(-1);
            wrapper.setPullOffset(0);
            wrapper.setLastTimestamp(1_700_000_000_000L);
            official.getOffsetTable().put(official(queue), wrapper);
            official.setConsumeTps(tps);
            ConsumeStats ours = new ConsumeStats(Map.of(queue, new OffsetWrapper(Long.MAX_VALUE, -1, 0, 1_700_000_000_000L)), tps);
            assertEquals(new String(official.encode(), StandardCharsets.UTF_8), new String(ours.encode(), StandardCharsets.UTF_8));
            assertArrayEquals(official.encode(), ours.encode());
            ConsumeStats back = ConsumeStats.decode(official.encode());
            assertEquals(ours.offsetTable(), back.offsetTable());
            assertEquals(tps, back.consumeTps());
        }
    }

    @Test
    void emptyCollectionsAndDefaultsMatchTheOfficialBytes() {
        var official = new org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable();
        official.setOffsetTable(new ConcurrentHashMap<>());
        assertEquals(new String(official.encode()), new String(new TopicStatsTable(Map.of()).encode()));
        var groups = new org.apache.rocketmq.remoting.protocol.body.GroupList();
        groups.setGroupList(new HashSet<>(Set.of("g")));
        assertEquals(new String(groups.encode()), new String(new GroupList(Set.of("g")).encode()));
        assertFalse(new String(new TopicList(Set.of(), null).encode()).contains("brokerAddr"));
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, V> orderedMap(Object... keysAndValues) {
        Map<K, V> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((K) keysAndValues[i], (V) keysAndValues[i + 1]);
        }
        return map;
    }
}
