package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.client.QueueLockManager;
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
import io.basalt.store.MessageStore;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends to {@code %RETRY%} topics through {@link SendMessageProcessor}, RocketMQ 5.2.0's handleRetryAndDLQ: stored as
 * sent until the reconsume count passes the max, then (or while the group holds an orderly lock) written to the
 * group's DLQ with DELAY=-1 and no timer properties.
 */
class RetryTopicSendsTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);
    private static final RequestContext CONSUMER = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        BROKER, 0);
    private static final String RETRY_PROPERTIES = "TAGS\u0001TagA\u0002UNIQ_KEY\u0001U-1\u0002RETRY_TOPIC\u0001T\u0002"
        + "ORIGIN_MESSAGE_ID\u0001U-1\u0002DELAY\u00015\u0002TIMER_DELAY_MS\u00013000\u0002"
        + "TIMER_DELIVER_MS\u00019999999999999\u0002TIMER_DELAY_SEC\u00013\u0002WAIT\u0001true\u0002";

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    SubscriptionGroupManager groups;
    QueueLockManager locks;
    final AtomicLong now = new AtomicLong(1_000_000);
    RetryCounts counts;
    SendMessageProcessor send;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        locks = new QueueLockManager(60_000, now::get);
        counts = new RetryCounts();
        send = processor(groups);
    }

    private SendMessageProcessor processor(SubscriptionGroupManager subscriptionGroups) {
        return new SendMessageProcessor(new StoreHost("DefaultCluster", "broker-a", BROKER), () -> true, 64 * 1024,
            store, topics, new BrokerCounters(), subscriptionGroups, locks, counts);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    /** A send to {@code topic} as the orderly consumer (or the send-back fallback) makes it. */
    private static RemotingCommand retrySend(String topic, int reconsumeTimes, Integer maxReconsumeTimes) {
        RemotingCommand r = SendRequests.sendV2(topic, RETRY_PROPERTIES, "poison".getBytes(StandardCharsets.UTF_8));
        r.putExtField("j", Integer.toString(reconsumeTimes));
        if (maxReconsumeTimes != null) {
            r.putExtField("l", Integer.toString(maxReconsumeTimes));
        }
        return r;
    }

    /** Sends and returns the record written. */
    private StoredMessage sent(RemotingCommand request) throws Exception {
        long end = store.getMaxPhyOffset();
        RemotingCommand response = send.processRequest(CONSUMER, request).get();
        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        return store.lookMessageByOffset(end);
    }

    @Test
    void aSendWithinTheMaxIsStoredAsSentWithItsDelay() throws Exception {
        StoredMessage retry = sent(retrySend("%RETRY%cg", 3, 3));

        assertEquals("%RETRY%cg", retry.topic(), "reconsumeTimes 3 of max 3 is the last retry allowed");
        assertEquals(3, retry.reconsumeTimes());
        assertEquals("5", retry.property("DELAY"));
        assertEquals("3000", retry.property("TIMER_DELAY_MS"));
        assertEquals(1, counts.countsOf("cg").retries());
        assertEquals(0, counts.countsOf("cg").deadLettered());
    }

    @Test
    void aSendPastTheMaxIsADeadLetterThatNoDelayOrTimerHoldsBack() throws Exception {
        StoredMessage dead = sent(retrySend("%RETRY%cg", 4, 3));

        assertEquals("%DLQ%cg", dead.topic());
        assertEquals(0, dead.queueId());
        assertEquals(4, dead.reconsumeTimes());
        Map<String, String> p = dead.propertyMap();
        assertEquals("-1", p.get("DELAY"), "DELAY=-1 cancels the client's level 5");
        assertNull(p.get("TIMER_DELAY_MS"));
        assertNull(p.get("TIMER_DELIVER_MS"));
        assertNull(p.get("TIMER_DELAY_SEC"));
        assertEquals("T", p.get("RETRY_TOPIC"));
        assertEquals("U-1", p.get("ORIGIN_MESSAGE_ID"));
        assertEquals("U-1", p.get("UNIQ_KEY"));
        assertEquals("TagA", p.get("TAGS"));
        TopicConfig dlq = topics.get("%DLQ%cg");
        assertEquals(1, dlq.readQueueNums());
        assertEquals(1, dlq.writeQueueNums());
        assertEquals(Perm.READ | Perm.WRITE, dlq.perm());
        assertEquals(1, counts.countsOf("cg").deadLettered());
        assertEquals(0, counts.countsOf("cg").retries());
    }

    @Test
    void withoutAClientMaxTheGroupsRetryMaxTimesCounts() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryMaxTimes(2));
        assertEquals("%RETRY%cg", sent(retrySend("%RETRY%cg", 2, null)).topic());
        assertEquals("%DLQ%cg", sent(retrySend("%RETRY%cg", 3, null)).topic());
    }

    @Test
    void aClientOlderThanV349HasItsMaxIgnored() throws Exception {
        RemotingCommand old = retrySend("%RETRY%cg", 2, 1);
        old.setVersion(120);
        assertEquals("%RETRY%cg", sent(old).topic(), "version 120: the group's 16 counts, not the header's 1");

        RemotingCommand v349 = retrySend("%RETRY%cg", 2, 1);
        v349.setVersion(121);
        assertEquals("%DLQ%cg", sent(v349).topic());
    }

    @Test
    void aGroupHoldingAnOrderlyLockDeadLettersItsRetrySendsUntilTheLockExpires() throws Exception {
        locks.tryLock("cg", "client-1", Set.of(new QueueLockManager.MessageQueue("T", "broker-a", 0)));

        assertEquals("%DLQ%cg", sent(retrySend("%RETRY%cg", 1, 16)).topic(),
            "an orderly consumer sends a message to %RETRY% only once it gave up on it");

        now.addAndGet(60_001);
        assertEquals("%RETRY%cg", sent(retrySend("%RETRY%cg", 1, 16)).topic(), "the lock expired");
    }

    @Test
    void aRetrySendOfAnUnknownGroupIsRefusedWhenGroupsAreNotAutoCreated() throws Exception {
        send = processor(SubscriptionGroupManager.open(dir.resolve("strict"), false));
        long end = store.getMaxPhyOffset();

        RemotingCommand refused = send.processRequest(CONSUMER, retrySend("%RETRY%cg", 1, 16)).get();

        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, refused.code());
        assertEquals(end, store.getMaxPhyOffset());
    }

    @Test
    void aBatchToARetryTopicIsIllegal() throws Exception {
        RemotingCommand batch = retrySend("%RETRY%cg", 1, 16);
        RemotingCommand asBatch = RemotingCommand.request(RequestCode.SEND_BATCH_MESSAGE);
        batch.extFields().forEach(asBatch::putExtField);
        asBatch.setBody(batch.body());

        RemotingCommand refused = send.processRequest(CONSUMER, asBatch).get();

        assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code());
        assertTrue(refused.remark().startsWith("batch request does not support retry group"), refused.remark());
    }

    @Test
    void aSendToAnOrdinaryTopicIsNotTouched() throws Exception {
        StoredMessage plain = sent(retrySend("T", 99, 1));
        assertEquals("T", plain.topic());
        assertEquals("5", plain.property("DELAY"));
        assertEquals(0, counts.snapshot().size());
    }
}
