package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONSUMER_SEND_MSG_BACK on a real store, step by step as RocketMQ 5.2.0's consumerSendMsgBack: where the record
 * goes (retry with which DELAY, or DLQ), the properties it carries, the group's and the client's max, and the
 * answers. No delay transform is installed here, so a retry record is seen as the processor writes it.
 */
class ConsumerSendMsgBackProcessorTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);
    private static final InetSocketAddress PRODUCER = new InetSocketAddress("10.1.2.3", 51000);
    private static final RequestContext CONSUMER = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        BROKER, 0);

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    SubscriptionGroupManager groups;
    RetryCounts counts;
    ConsumerSendMsgBackProcessor processor;
    /** What the processor told RocketMQ's SNDBCK_PUT_NUMS: first topic @ group. */
    final java.util.List<String> sentBack = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        counts = new RetryCounts();
        processor = new ConsumerSendMsgBackProcessor(store, topics, groups, BROKER, () -> true, counts,
            (topic, group) -> sentBack.add(topic + "@" + group));
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    /** Stores a message as a producer's send (or an earlier retry, with {@code reconsumeTimes}); its offset. */
    private long stored(String topic, int reconsumeTimes, String properties) throws Exception {
        long offset = store.getMaxPhyOffset();
        BrokerMessage m = BrokerMessage.builder().topic(topic).queueId(0).flag(7)
            .body("poison".getBytes(StandardCharsets.UTF_8)).propertiesString(properties)
            .bornTimestamp(1_700_000_000_000L).bornHost(PRODUCER).storeHost(BROKER).sysFlag(0)
            .reconsumeTimes(reconsumeTimes).build();
        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(m).get().status());
        return offset;
    }

    private long stored(int reconsumeTimes) throws Exception {
        return stored("T", reconsumeTimes, "TAGS\u0001TagA\u0002KEYS\u0001k1\u0002UNIQ_KEY\u0001U-1\u0002");
    }

    private static RemotingCommand request(long offset, int delayLevel, Integer maxReconsumeTimes) {
        RemotingCommand r = RemotingCommand.request(RequestCode.CONSUMER_SEND_MSG_BACK);
        r.putExtField("offset", Long.toString(offset));
        r.putExtField("group", "cg");
        r.putExtField("delayLevel", Integer.toString(delayLevel));
        r.putExtField("originMsgId", "U-1");
        r.putExtField("originTopic", "T");
        r.putExtField("unitMode", "false");
        if (maxReconsumeTimes != null) {
            r.putExtField("maxReconsumeTimes", Integer.toString(maxReconsumeTimes));
        }
        return r;
    }

    /** Sends the record at {@code offset} back; the record it wrote (null when nothing was written). */
    private StoredMessage sendBack(RemotingCommand request) throws Exception {
        long end = store.getMaxPhyOffset();
        RemotingCommand response = processor.processRequest(CONSUMER, request).get();
        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        return store.getMaxPhyOffset() == end ? null : store.lookMessageByOffset(end);
    }

    @Test
    void everyStoredSendBackCountsForTheFirstTopicAndGroup() throws Exception {
        long offset = stored(0);
        StoredMessage retry = sendBack(request(offset, 0, 16));
        // a second hop: the retry message is sent back again, still counted for its first topic
        sendBack(request(retry.physicalOffset(), 0, 16));
        assertEquals(java.util.List.of("T@cg", "T@cg"), sentBack);
    }

    @Test
    void withoutBrokerWriteASendBackIsRefusedAndNothingIsWritten() throws Exception {
        long offset = stored(0);
        long end = store.getMaxPhyOffset();
        topics.brokerPermission().configure(4, "127.0.0.1");

        RemotingCommand response = processor.processRequest(CONSUMER, request(offset, 0, 16)).get();

        assertEquals(ResponseCode.NO_PERMISSION, response.code());
        assertTrue(response.remark().startsWith("the broker[127.0.0.1] sending message is forbidden"), response.remark());
        assertEquals(end, store.getMaxPhyOffset());
    }

    @Test
    void aFirstRetryGoesToTheRetryTopicAtLevelThreeWithRocketMqsProperties() throws Exception {
        String tx = "TAGS\u0001TagA\u0002KEYS\u0001k1\u0002UNIQ_KEY\u0001U-1\u0002TRAN_MSG\u0001true\u0002PGROUP\u0001pg\u0002";
        long offset = stored("T", 0, tx);
        StoredMessage original = store.lookMessageByOffset(offset);

        StoredMessage retry = sendBack(request(offset, 0, 16));

        assertEquals("%RETRY%cg", retry.topic());
        assertEquals(1, retry.reconsumeTimes());
        Map<String, String> p = retry.propertyMap();
        assertEquals("3", p.get("DELAY"), "level 3 + reconsumeTimes 0: the delay transform backs it off");
        assertEquals("T", p.get("RETRY_TOPIC"));
        assertEquals("false", p.get("WAIT"));
        assertEquals(original.offsetMsgId(), p.get("ORIGIN_MESSAGE_ID"),
            "the original record's offsetMsgId, not the originMsgId of the header (U-1)");
        assertNull(p.get("TRAN_MSG"), "a retried transactional message is not a half message (#1648)");
        assertEquals("U-1", p.get("UNIQ_KEY"));
        assertEquals("TagA", p.get("TAGS"));
        assertEquals("k1", p.get("KEYS"));
        assertEquals("pg", p.get("PGROUP"));
        assertEquals("poison", new String(retry.body(), StandardCharsets.UTF_8));
        assertEquals(7, retry.flag());
        assertEquals(original.bornTimestamp(), retry.bornTimestamp());
        assertEquals(PRODUCER, retry.bornHost(), "the born host stays the producer's");
        assertEquals(BROKER, retry.storeHost());
        TopicConfig retryTopic = topics.get("%RETRY%cg");
        assertEquals(1, retryTopic.writeQueueNums());
        assertEquals(Perm.READ | Perm.WRITE, retryTopic.perm());
        assertEquals(0, retryTopic.topicSysFlag());
        assertEquals(1, counts.countsOf("cg").retries());
        assertEquals(0, counts.countsOf("cg").deadLettered());
    }

    @Test
    void laterHopsKeepTheFirstTopicAndOriginIdAndBackOffOneLevelFurtherEachTime() throws Exception {
        long first = stored(0);
        String firstId = store.lookMessageByOffset(first).offsetMsgId();
        long hop = first;
        for (int reconsumeTimes = 0; reconsumeTimes < 3; reconsumeTimes++) {
            long next = store.getMaxPhyOffset();
            StoredMessage retry = sendBack(request(hop, 0, 16));
            assertEquals(Integer.toString(3 + reconsumeTimes), retry.property("DELAY"));
            assertEquals("T", retry.property("RETRY_TOPIC"), "the first topic, not %RETRY%cg");
            assertEquals(firstId, retry.property("ORIGIN_MESSAGE_ID"));
            assertEquals(reconsumeTimes + 1, retry.reconsumeTimes());
            hop = next;
        }
        assertEquals(3, counts.countsOf("cg").retries());
    }

    @Test
    void aLevelTheClientChoseIsUsedAsItIs() throws Exception {
        assertEquals("7", sendBack(request(stored(4), 7, 16)).property("DELAY"));
    }

    @Test
    void theClientsMaxAllowsExactlyThatManyRetriesThenTheDlq() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryMaxTimes(16));
        StoredMessage lastRetry = sendBack(request(stored(1), 0, 2));
        assertEquals("%RETRY%cg", lastRetry.topic(), "reconsumeTimes 1 of max 2: retry number 2 is allowed");
        assertEquals(2, lastRetry.reconsumeTimes());

        StoredMessage dead = sendBack(request(stored(2), 0, 2));

        assertEquals("%DLQ%cg", dead.topic(), "reconsumeTimes 2 of max 2: the retries are used up");
        assertEquals(0, dead.queueId());
        assertEquals(3, dead.reconsumeTimes());
        assertEquals("0", dead.property("DELAY"), "DELAY=0: the delay transform leaves a dead letter alone");
        assertEquals("T", dead.property("RETRY_TOPIC"));
        TopicConfig dlq = topics.get("%DLQ%cg");
        assertEquals(1, dlq.readQueueNums());
        assertEquals(1, dlq.writeQueueNums());
        assertEquals(Perm.READ | Perm.WRITE, dlq.perm());
        assertEquals(1, counts.countsOf("cg").deadLettered());
        assertEquals(1, counts.countsOf("cg").retries());
    }

    @Test
    void withoutAClientMaxTheGroupsRetryMaxTimesCounts() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryMaxTimes(3));
        assertEquals("%RETRY%cg", sendBack(request(stored(2), 0, null)).topic());
        assertEquals("%DLQ%cg", sendBack(request(stored(3), 0, null)).topic());
    }

    @Test
    void aClientOlderThanV349HasItsMaxIgnored() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryMaxTimes(16));
        RemotingCommand old = request(stored(1), 0, 1);
        old.setVersion(120);
        assertEquals("%RETRY%cg", sendBack(old).topic(), "version 120: the group's 16 counts, not the header's 1");

        RemotingCommand v349 = request(stored(1), 0, 1);
        v349.setVersion(121);
        assertEquals("%DLQ%cg", sendBack(v349).topic(), "version 121 (V3_4_9): the header's 1 counts");
    }

    @Test
    void aNegativeLevelIsTheDlqAtOnce() throws Exception {
        StoredMessage dead = sendBack(request(stored(0), -1, 16));
        assertEquals("%DLQ%cg", dead.topic());
        assertEquals("0", dead.property("DELAY"));
        assertEquals(1, dead.reconsumeTimes());
    }

    @Test
    void aGroupWithoutRetryQueuesDropsTheMessageAnsweringSuccessAndCountsIt() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryQueueNums(0));
        long offset = stored(0);

        assertNull(sendBack(request(offset, 0, 16)), "nothing stored");
        assertNull(sendBack(request(offset, 0, 16)));

        assertNull(topics.get("%RETRY%cg"), "no retry topic is created");
        assertEquals(2, counts.countsOf("cg").dropped());
        assertEquals(0, counts.countsOf("cg").retries());
    }

    @Test
    void aUnitModeConsumersRetryTopicIsUnitSubWithTheGroupsQueues() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryQueueNums(3));
        RemotingCommand r = request(stored(0), 0, 16);
        r.putExtField("unitMode", "true");

        StoredMessage retry = sendBack(r);

        TopicConfig retryTopic = topics.get("%RETRY%cg");
        assertEquals(ConsumerSendMsgBackProcessor.TOPIC_SYS_FLAG_UNIT_SUB, retryTopic.topicSysFlag());
        assertEquals(3, retryTopic.readQueueNums());
        assertEquals(3, retryTopic.writeQueueNums());
        assertTrue(retry.queueId() >= 0 && retry.queueId() < 3);
    }

    @Test
    void anUnknownGroupIsRefusedWhenGroupsAreNotAutoCreated() throws Exception {
        ConsumerSendMsgBackProcessor strict = new ConsumerSendMsgBackProcessor(store, topics,
            SubscriptionGroupManager.open(dir.resolve("strict"), false), BROKER, () -> true, counts);
        long offset = stored(0);
        long end = store.getMaxPhyOffset();

        RemotingCommand refused = strict.processRequest(CONSUMER, request(offset, 0, 16)).get();

        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, refused.code());
        assertTrue(refused.remark().startsWith("subscription group not exist, cg"), refused.remark());
        assertEquals(end, store.getMaxPhyOffset());
    }

    @Test
    void aBrokerNotAcceptingWritesAnswersNoPermissionLikeRocketMq() throws Exception {
        long offset = stored(0);
        long end = store.getMaxPhyOffset();
        ConsumerSendMsgBackProcessor slave = new ConsumerSendMsgBackProcessor(store, topics, groups, BROKER,
            () -> false, counts);

        RemotingCommand refused = slave.processRequest(CONSUMER, request(offset, 0, 16)).get();

        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertTrue(refused.remark().startsWith("the broker[127.0.0.1:10911] sending message is forbidden"),
            refused.remark());
        assertEquals(end, store.getMaxPhyOffset());
        assertFalse(groups.get("cg").isPresent(), "a broker that takes no writes creates no group either");
    }

    @Test
    void anUnknownOffsetIsASystemError() throws Exception {
        stored(0);
        RemotingCommand r = processor.processRequest(CONSUMER, request(store.getMaxPhyOffset() + 1000, 0, 16)).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, r.code());
        assertTrue(r.remark().startsWith("look message by offset failed"), r.remark());
    }

    @Test
    void aPutThePutPathRefusesIsASystemErrorNamingTheStatus() throws Exception {
        long offset = stored(0);
        store.addPutTransform(m -> m.topic().startsWith("%RETRY%")
            ? PutMessageTransform.Decision.refuse(PutMessageStatus.MESSAGE_ILLEGAL, "delay level 99 is out of range")
            : PutMessageTransform.Decision.append(m));

        RemotingCommand r = processor.processRequest(CONSUMER, request(offset, 0, 16)).get();

        assertEquals(ResponseCode.SYSTEM_ERROR, r.code());
        assertEquals("MESSAGE_ILLEGAL: delay level 99 is out of range", r.remark());
        assertEquals(0, counts.countsOf("cg").retries(), "only stored retries count");
    }
}
