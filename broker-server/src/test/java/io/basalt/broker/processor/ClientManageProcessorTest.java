package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.protocol.Json;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HEART_BEAT records consumer groups as RocketMQ does, and sizes their retry topics by the group's config;
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ and CHECK_CLIENT_CONFIG read and answer their bodies.
 */
class ClientManageProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private TopicConfigManager topics;
    private SubscriptionGroupManager groups;
    private ClientManager clients;
    private ClientManageProcessor processor;
    private ConsumerFilters filters;

    private void open(boolean autoCreateSubscriptionGroup) throws Exception {
        open(autoCreateSubscriptionGroup, false);
    }

    private void open(boolean autoCreateSubscriptionGroup, boolean enablePropertyFilter) throws Exception {
        topics = TopicConfigManager.open(dir, true, 4);
        groups = SubscriptionGroupManager.open(dir, autoCreateSubscriptionGroup);
        clients = new ClientManager(120_000, System::currentTimeMillis);
        filters = new ConsumerFilters(enablePropertyFilter);
        processor = new ClientManageProcessor(clients, new QueueLockManager(60_000, System::currentTimeMillis), groups,
            topics, filters);
    }

    private RemotingCommand heartbeat(String group) throws Exception {
        return processor.processRequest(CONTEXT, heartbeatRequest(group)).get();
    }

    private RemotingCommand heartbeat(String group, String subscription) throws Exception {
        return processor.processRequest(CONTEXT, heartbeatRequest(group, subscription)).get();
    }

    private static RemotingCommand heartbeatRequest(String group) {
        return heartbeatRequest(group, "{\"subString\":\"*\",\"subVersion\":1,\"topic\":\"T\"}");
    }

    private static RemotingCommand heartbeatRequest(String group, String subscription) {
        RemotingCommand request = RemotingCommand.request(RequestCode.HEART_BEAT);
        request.setBody(("{\"clientID\":\"127.0.0.1@1\",\"consumerDataSet\":[{\"consumeFromWhere\":\"CONSUME_FROM_LAST_OFFSET\","
            + "\"consumeType\":\"CONSUME_PASSIVELY\",\"groupName\":\"" + group + "\",\"messageModel\":\"CLUSTERING\","
            + "\"subscriptionDataSet\":[" + subscription + "],\"unitMode\":false}],"
            + "\"producerDataSet\":[]}").getBytes(StandardCharsets.UTF_8));
        return request;
    }

    @Test
    void aConsumerIsRecordedWithTheLanguageAndVersionOfItsHeartbeatRequest() throws Exception {
        open(true);
        RemotingCommand request = heartbeatRequest("hb_go");
        request.setLanguage(io.basalt.remoting.protocol.LanguageCode.GO);
        request.setVersion(453);
        assertEquals(ResponseCode.SUCCESS, processor.processRequest(CONTEXT, request).get().code());
        var member = clients.consumerGroup("hb_go").members().get(0);
        assertEquals("GO", member.language());
        assertEquals(453, member.version());
    }

    @Test
    void aProducerIsRegisteredOnItsConnectionWithItsLanguageAndVersionUntilItUnregisters() throws Exception {
        open(true);
        RemotingConnection connection = new OpenConnection();
        RequestContext context = new RequestContext(connection, connection.remoteAddress(),
            new InetSocketAddress("127.0.0.1", 10911), 0);
        RemotingCommand request = RemotingCommand.request(RequestCode.HEART_BEAT);
        request.setLanguage(io.basalt.remoting.protocol.LanguageCode.CPP);
        request.setVersion(401);
        request.setBody("{\"clientID\":\"127.0.0.1@7\",\"consumerDataSet\":[],\"producerDataSet\":[{\"groupName\":\"pg\"},{\"groupName\":\"CLIENT_INNER_PRODUCER\"}]}"
            .getBytes(StandardCharsets.UTF_8));
        assertEquals(ResponseCode.SUCCESS, processor.processRequest(context, request).get().code());
        var producer = clients.producers().producers("pg").get(0);
        assertEquals("127.0.0.1@7", producer.clientId());
        assertEquals("CPP", producer.language());
        assertEquals(401, producer.version());
        assertEquals(java.util.Optional.of(connection), clients.producers().checkChannel("pg", connection.remoteAddress()));

        RemotingCommand unregister = RemotingCommand.request(RequestCode.UNREGISTER_CLIENT);
        unregister.putExtField("clientID", "127.0.0.1@7");
        unregister.putExtField("producerGroup", "pg");
        assertEquals(ResponseCode.SUCCESS, processor.processRequest(context, unregister).get().code());
        assertEquals(Set.of("CLIENT_INNER_PRODUCER"), clients.producerGroupNames());
        assertTrue(clients.producers().checkChannel("pg", connection.remoteAddress()).isEmpty());
    }

    @Test
    void aHeartbeatsSql92SubscriptionIsCompiledForPullsAndKeptWithoutTags() throws Exception {
        open(true, true);
        assertEquals(ResponseCode.SUCCESS, heartbeat("hb_cg",
            "{\"expressionType\":\"SQL92\",\"subString\":\"a > 1 || b\",\"subVersion\":5,\"topic\":\"T\"}").code());
        assertEquals(Set.of(), clients.consumerGroup("hb_cg").subscription("T").tagsSet(), "SQL92 is not split into tags");
        assertEquals("SQL92", clients.consumerGroup("hb_cg").subscription("T").expressionType());
        assertNull(filters.registered("hb_cg", "T"), "'a > 1 || b' does not compile: no filter, pulls get FILTER_DATA_NOT_EXIST");
        heartbeat("hb_cg", "{\"expressionType\":\"SQL92\",\"subString\":\"a > 1\",\"subVersion\":6,\"topic\":\"T\"}");
        assertEquals("a > 1", filters.registered("hb_cg", "T").expression());
        assertEquals(6, filters.registered("hb_cg", "T").subVersion());
        heartbeat("hb_cg", "{\"expressionType\":\"TAG\",\"subString\":\"TagA\",\"subVersion\":7,\"topic\":\"T\"}");
        assertNull(filters.registered("hb_cg", "T"), "back to a TAG subscription");
    }

    @Test
    void aHeartbeatRecordsItsUnknownGroupAndCreatesItsRetryTopic() throws Exception {
        open(true);
        assertEquals(ResponseCode.SUCCESS, heartbeat("hb_cg").code());
        assertEquals(SubscriptionGroupConfig.defaults("hb_cg"), groups.get("hb_cg").orElseThrow());
        assertEquals(1, topics.get("%RETRY%hb_cg").writeQueueNums());
    }

    @Test
    void theRetryTopicGetsTheGroupsRetryQueueNums() throws Exception {
        open(true);
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("hb_cg").withRetryQueueNums(3));
        heartbeat("hb_cg");
        assertEquals(3, topics.get("%RETRY%hb_cg").writeQueueNums());
    }

    @Test
    void withoutAutoCreationTheConsumerIsRegisteredButItsGroupIsNotRecorded() throws Exception {
        open(false);
        assertEquals(ResponseCode.SUCCESS, heartbeat("hb_cg").code());
        assertTrue(groups.get("hb_cg").isEmpty());
        assertNull(topics.get("%RETRY%hb_cg"), "RocketMQ creates no retry topic for an unrecorded group");
        assertNotNull(clients.consumerGroup("hb_cg"));
    }

    private RemotingCommand request(int code, String body) throws Exception {
        RemotingCommand request = RemotingCommand.request(code);
        request.setBody(body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        return processor.processRequest(CONTEXT, request).get();
    }

    @Test
    void lockBatchLocksForOneClientAnswersWithItsQueuesAndUnlockFreesThem() throws Exception {
        open(true);
        String queues = "\"mqSet\":[{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"T\"},"
            + "{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}]";
        RemotingCommand locked = request(RequestCode.LOCK_BATCH_MQ, "{\"clientId\":\"c1\",\"consumerGroup\":\"cg\"," + queues + "}");
        assertEquals(ResponseCode.SUCCESS, locked.code());
        assertEquals("{\"lockOKMQSet\":[{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"T\"},"
            + "{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}]}", new String(locked.body(), StandardCharsets.UTF_8));
        String byOther = "{\"clientId\":\"c2\",\"consumerGroup\":\"cg\"," + queues + "}";
        assertEquals("{\"lockOKMQSet\":[]}", new String(request(RequestCode.LOCK_BATCH_MQ, byOther).body(), StandardCharsets.UTF_8));
        assertEquals(ResponseCode.SUCCESS, request(RequestCode.UNLOCK_BATCH_MQ, "{\"clientId\":\"c1\",\"consumerGroup\":\"cg\"," + queues + "}").code());
        // unlocked, so the other client gets both
        Map<?, ?> lockedByOther = (Map<?, ?>) Json.parse(request(RequestCode.LOCK_BATCH_MQ, byOther).body());
        assertEquals(2, ((List<?>) lockedByOther.get("lockOKMQSet")).size());
        assertEquals(BrokerResponseCode.INVALID_PARAMETER, request(RequestCode.LOCK_BATCH_MQ, null).code());
        assertEquals(BrokerResponseCode.INVALID_PARAMETER, request(RequestCode.LOCK_BATCH_MQ, "{\"mqSet\":").code());
    }

    @Test
    void checkClientConfigRefusesNonTagFilters() throws Exception {
        open(true);
        assertEquals(ResponseCode.SUCCESS, request(RequestCode.CHECK_CLIENT_CONFIG,
            "{\"clientId\":\"c\",\"group\":\"g\",\"subscriptionData\":{\"expressionType\":\"TAG\",\"topic\":\"T\"}}").code());
        assertEquals(ResponseCode.SUCCESS, request(RequestCode.CHECK_CLIENT_CONFIG, null).code());
        assertEquals(ResponseCode.SYSTEM_ERROR, request(RequestCode.CHECK_CLIENT_CONFIG,
            "{'subscriptionData':{expressionType:'SQL92'}}").code());
        assertEquals(BrokerResponseCode.INVALID_PARAMETER, request(RequestCode.CHECK_CLIENT_CONFIG, "{").code());
    }

    @Test
    void withPropertyFilterCheckClientConfigAcceptsAGoodSql92ExpressionAndRefusesAMalformedOneAsParseFailed() throws Exception {
        open(true, true);
        assertEquals(ResponseCode.SUCCESS, request(RequestCode.CHECK_CLIENT_CONFIG,
            "{\"clientId\":\"c\",\"group\":\"g\",\"subscriptionData\":{\"expressionType\":\"SQL92\","
                + "\"subString\":\"a > 5 AND region = 'eu'\",\"topic\":\"T\"}}").code());
        RemotingCommand malformed = request(RequestCode.CHECK_CLIENT_CONFIG,
            "{\"clientId\":\"c\",\"group\":\"g\",\"subscriptionData\":{\"expressionType\":\"SQL92\","
                + "\"subString\":\"a > AND\",\"topic\":\"T\"}}");
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, malformed.code());
        assertTrue(malformed.remark().startsWith("Invalid MessageSelector."), malformed.remark());
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, request(RequestCode.CHECK_CLIENT_CONFIG,
            "{\"subscriptionData\":{\"expressionType\":\"GROOVY\",\"subString\":\"x\",\"topic\":\"T\"}}").code());
    }

    /** An open connection from 127.0.0.1:40000 that is never called. */
    private static final class OpenConnection implements RemotingConnection {
        @Override
        public java.net.SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 40000);
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public java.util.concurrent.CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
