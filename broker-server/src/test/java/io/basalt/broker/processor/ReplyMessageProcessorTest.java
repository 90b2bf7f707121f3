package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.netty.RemotingTimeoutException;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ReplyMessageRequestHeader;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SEND_REPLY_MESSAGE(_V2) against a real store: the reply is pushed to the requester's producer connection
 * with RocketMQ's PUSH_REPLY_MESSAGE_TO_CLIENT header, stored or not by storeReplyMessageEnable, answered
 * SYSTEM_ERROR when it cannot be pushed, and checked like a send.
 */
class ReplyMessageProcessorTest {
    private static final String REPLY_TOPIC = "DefaultCluster_REPLY_TOPIC";
    private static final String REQUESTER = "127.0.0.1@requester";
    private static final InetSocketAddress REPLIER = new InetSocketAddress("127.0.0.1", 40000);
    private static final RequestContext CONTEXT = new RequestContext(null, REPLIER,
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    ClientManager clients;
    final StoreHost host = new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911));

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config);
        store.load();
        store.start();
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        topics.createIfAbsent(REPLY_TOPIC, 1, Perm.READ | Perm.WRITE);
        clients = new ClientManager(120_000, System::currentTimeMillis);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private ReplyMessageProcessor processor(boolean storeReplies) {
        return new ReplyMessageProcessor(host, () -> true, 64 * 1024, store, topics, clients, storeReplies,
            new BrokerCounters());
    }

    private static String replyProperties(String replyTo) {
        StringBuilder sb = new StringBuilder();
        sb.append("CORRELATION_ID\u0001corr-1\u0002MSG_TYPE\u0001reply\u0002TTL\u00013000\u0002UNIQ_KEY\u0001U-1\u0002");
        if (replyTo != null) {
            sb.append("REPLY_TO_CLIENT\u0001").append(replyTo).append('\u0002');
        }
        return sb.toString();
    }

    private static RemotingCommand replyV2(String topic, int queueId, String properties) {
        RemotingCommand r = SendRequests.sendV2(topic, properties, "the answer".getBytes(StandardCharsets.UTF_8));
        r.setCode(RequestCode.SEND_REPLY_MESSAGE_V2);
        r.putExtField("e", Integer.toString(queueId));
        return r;
    }

    private FakeRequester connectRequester(Supplier<CompletableFuture<RemotingCommand>> answer) {
        FakeRequester requester = new FakeRequester(answer);
        clients.registerProducer("requester-group", REQUESTER, requester);
        return requester;
    }

    private static CompletableFuture<RemotingCommand> takes() {
        return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
    }

    @Test
    void theReplyIsPushedToTheRequesterWithRocketMqsHeaderAndStored() throws Exception {
        FakeRequester requester = connectRequester(ReplyMessageProcessorTest::takes);
        RemotingCommand response = processor(true).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(REQUESTER))).get();

        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        assertEquals(1, requester.pushes.size());
        RemotingCommand push = requester.pushes.get(0);
        assertEquals(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, push.code());
        assertArrayEquals("the answer".getBytes(StandardCharsets.UTF_8), push.body());
        // as the requester reads it off the wire
        ReplyMessageRequestHeader header = ReplyMessageRequestHeader.decode(RemotingCommand.decodeFrame(push.encode())
            .extFields());
        assertEquals(REPLY_TOPIC, header.getTopic());
        assertEquals("pg", header.getProducerGroup());
        assertEquals("127.0.0.1:40000", header.getBornHost());
        assertEquals("127.0.0.1:10911", header.getStoreHost());
        Map<String, String> pushed = MessageProperties.parse(header.getProperties());
        assertEquals("corr-1", pushed.get("CORRELATION_ID"));
        assertEquals(REQUESTER, pushed.get("REPLY_TO_CLIENT"));
        assertTrue(pushed.containsKey("PUSH_REPLY_TIME"), header.getProperties());

        String msgId = response.extFields().get("msgId");
        assertNotEquals("0", msgId);
        assertEquals("0", response.extFields().get("queueOffset"));
        assertEquals("DefaultRegion", response.extFields().get("MSG_REGION"));
        StoredMessage stored = store.lookMessageByOffset(0);
        assertEquals(msgId, stored.offsetMsgId());
        assertEquals(REPLY_TOPIC, stored.topic());
        assertEquals("corr-1", stored.property("CORRELATION_ID"));
        assertNull(stored.property("PUSH_REPLY_TIME"), "stored with the properties the replier sent");
    }

    @Test
    void withStoreReplyMessageEnableOffTheReplyIsOnlyPushed() throws Exception {
        FakeRequester requester = connectRequester(ReplyMessageProcessorTest::takes);
        RemotingCommand response = processor(false).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(REQUESTER))).get();

        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        assertEquals(1, requester.pushes.size());
        assertEquals("0", response.extFields().get("msgId"), "RocketMQ's placeholder for a reply not stored");
        assertEquals("0", response.extFields().get("queueOffset"));
        assertEquals("0", response.extFields().get("queueId"));
        assertEquals(0, store.getMaxPhyOffset(), "nothing was written");
    }

    @Test
    void theLongNamedReplyHeaderIsReadToo() throws Exception {
        FakeRequester requester = connectRequester(ReplyMessageProcessorTest::takes);
        RemotingCommand request = RemotingCommand.request(RequestCode.SEND_REPLY_MESSAGE);
        request.putExtField("producerGroup", "pg");
        request.putExtField("topic", REPLY_TOPIC);
        request.putExtField("defaultTopic", "TBW102");
        request.putExtField("defaultTopicQueueNums", "4");
        request.putExtField("queueId", "0");
        request.putExtField("sysFlag", "0");
        request.putExtField("bornTimestamp", "1700000000000");
        request.putExtField("flag", "0");
        request.putExtField("properties", replyProperties(REQUESTER));
        request.setBody("v1".getBytes(StandardCharsets.UTF_8));

        assertEquals(ResponseCode.SUCCESS, processor(false).processRequest(CONTEXT, request).get().code());
        assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), requester.pushes.get(0).body());
    }

    @Test
    void aReplyToARequesterNotConnectedHereIsAnsweredSystemErrorAndStillStored() throws Exception {
        RemotingCommand response = processor(true).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties("127.0.0.1@gone"))).get();

        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertEquals("push reply message fail, channel of <127.0.0.1@gone> not found.", response.remark());
        assertEquals(REPLY_TOPIC, store.lookMessageByOffset(0).topic(), "stored as RocketMQ does");
    }

    @Test
    void aRequesterWhoseConnectionClosedIsNotPushedTo() throws Exception {
        FakeRequester requester = connectRequester(ReplyMessageProcessorTest::takes);
        requester.active = false;
        RemotingCommand response = processor(false).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(REQUESTER))).get();

        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertTrue(response.remark().contains("not found"), response.remark());
        assertEquals(0, requester.pushes.size());
    }

    @Test
    void aRequesterThatRefusesOrDoesNotAnswerFailsThePush() throws Exception {
        connectRequester(() -> CompletableFuture.completedFuture(
            RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "process reply message fail")));
        RemotingCommand refused = processor(false).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(REQUESTER))).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, refused.code());
        assertEquals("push reply message to " + REQUESTER + " fail.", refused.remark());

        connectRequester(() -> CompletableFuture.failedFuture(new RemotingTimeoutException("no answer in 10000 ms")));
        RemotingCommand timedOut = processor(false).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(REQUESTER))).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, timedOut.code());
        assertEquals("push reply message to " + REQUESTER + " fail.", timedOut.remark());
    }

    @Test
    void aReplyThatNamesNoRequesterIsAnsweredSystemError() throws Exception {
        RemotingCommand response = processor(false).processRequest(CONTEXT, replyV2(REPLY_TOPIC, 0,
            replyProperties(null))).get();

        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertEquals("reply message properties[REPLY_TO_CLIENT] is null", response.remark());
    }

    @Test
    void aReplyIsCheckedLikeASendAndARefusedOneIsNeitherPushedNorStored() throws Exception {
        FakeRequester requester = connectRequester(ReplyMessageProcessorTest::takes);
        ReplyMessageProcessor processor = processor(true);

        assertEquals(BrokerResponseCode.INVALID_PARAMETER, processor.processRequest(CONTEXT,
            replyV2(REPLY_TOPIC, 5, replyProperties(REQUESTER))).get().code(), "the reply topic has one queue");
        assertEquals(ResponseCode.NO_PERMISSION, processor.processRequest(CONTEXT,
            replyV2("SCHEDULE_TOPIC_XXXX", 0, replyProperties(REQUESTER))).get().code());
        assertEquals(BrokerResponseCode.INVALID_PARAMETER, processor.processRequest(CONTEXT,
            replyV2("bad topic!", 0, replyProperties(REQUESTER))).get().code());
        RemotingCommand tooLarge = replyV2(REPLY_TOPIC, 0, replyProperties(REQUESTER));
        tooLarge.setBody(new byte[64 * 1024 + 1]);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, processor.processRequest(CONTEXT, tooLarge).get().code());
        RemotingCommand notWritable = replyV2(REPLY_TOPIC, 0, replyProperties(REQUESTER));
        assertEquals(ResponseCode.SERVICE_NOT_AVAILABLE, new ReplyMessageProcessor(host, () -> false, 64 * 1024, store,
            topics, clients, true, new BrokerCounters()).processRequest(CONTEXT, notWritable).get().code());

        assertEquals(0, requester.pushes.size());
        assertEquals(0, store.getMaxPhyOffset());
    }

    /** A requester's connection: records the pushes it gets and answers each as told. */
    private static final class FakeRequester implements RemotingConnection {
        final List<RemotingCommand> pushes = new CopyOnWriteArrayList<>();
        final Supplier<CompletableFuture<RemotingCommand>> answer;
        volatile boolean active = true;

        FakeRequester(Supplier<CompletableFuture<RemotingCommand>> answer) {
            this.answer = answer;
        }

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 50000);
        }

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            pushes.add(request);
            return answer.get();
        }

        @Override
        public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            throw new UnsupportedOperationException("a reply is pushed with a response expected");
        }

        @Override
        public void close() {
            active = false;
        }
    }
}
