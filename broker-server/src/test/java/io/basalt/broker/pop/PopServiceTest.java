package io.basalt.broker.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PopService on a real store (without the timer step, so records land in the revive queue at once): the refusals of
 * POP_MESSAGE, the CK stored before the answer and the offset committed past the messages, a retry-topic message
 * given with its original topic and POP_CK (decoded by RocketMQ's own MessageDecoder), and the records ACK and
 * CHANGE_MESSAGE_INVISIBLETIME store.
 */
class PopServiceTest {
    static final String REVIVE = "rmq_sys_REVIVE_LOG_DefaultCluster";
    static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    ConsumerOffsetManager offsets;
    PopLongPolling polling = new PopLongPolling(10);
    AtomicBoolean timerEnabled = new AtomicBoolean(true);
    AtomicBoolean writable = new AtomicBoolean(true);
    PopService service;

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system());
        store.load();
        store.start();
        SubscriptionGroupManager groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        topics.createIfAbsent("T", 1, Perm.READ | Perm.WRITE);
        topics.createIfAbsent(REVIVE, 1, Perm.READ | Perm.WRITE);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        service = new PopService(store, topics, groups, offsets, new ConsumerFilters(false), HOST, timerEnabled::get,
            writable::get, System::currentTimeMillis, new PopCounters(), polling,
            new PopService.Settings("broker-a", REVIVE, 1, 20_000));
    }

    @AfterEach
    void close() {
        polling.shutdown();
        store.shutdown();
    }

    @Test
    void refusals() throws Exception {
        assertRefused(request("T", 32, false), ResponseCode.SUCCESS, null);
        assertRefused(request("T", 33, false), ResponseCode.SYSTEM_ERROR, "num is greater than 32");
        assertRefused(request("T", 1, true), ResponseCode.SUCCESS, null);
        assertRefused(request("Unknown", 1, false), ResponseCode.TOPIC_NOT_EXIST, "not exist");
        writable.set(false);
        assertRefused(request("T", 1, false), ResponseCode.SYSTEM_ERROR, "POP is served by the master only");
        assertEquals(ResponseCode.SYSTEM_ERROR, service.ack("g", "T", 0, 0, "0 1 2 0 0 b 0 0").code());
        timerEnabled.set(false);
        assertRefused(request("T", 1, false), ResponseCode.SYSTEM_ERROR,
            "pop message is forbidden because timerWheelEnable is false");
    }

    @Test
    void theCheckPointIsStoredBeforeTheAnswerAndTheOffsetCommittedPastTheMessages() throws Exception {
        for (int i = 0; i < 3; i++) {
            put("T", "m" + i);
        }
        PopResult result = service.pop(new PopRequest("g", "T", 0, 2, 5000, 0, PopRequest.INIT_MODE_MIN, "TAG", "*",
            false)).get();
        assertEquals(ResponseCode.SUCCESS, result.outcome().code());
        assertEquals(2, result.messages().size());
        assertEquals("0 0 0", result.startOffsetInfo());
        assertEquals("0 0 0,1", result.msgOffsetInfo());
        assertEquals(1, result.restNum());
        assertEquals(2, offsets.queryOffset("g", "T", 0));
        StoredMessage record = reviveRecord(0);
        assertEquals(PopRecords.CK_TAG, record.property(MessageProperties.TAGS));
        CheckPoint ck = CheckPoint.fromJson(record.body());
        assertEquals(new CheckPoint(0, result.popTime(), 5000, 2, 0, "T", "g", -1, List.of(0, 1), "broker-a"), ck);
        assertEquals(Long.toString(result.popTime() + 5000 - 1000), record.property(ReviveRecordWriter.TIMER_DELIVER_MS));
        assertEquals(new PopHandle(0, result.popTime(), 5000, 0, 0, "broker-a", 0, 1,
            result.handles().get(1).commitLogOffset()), result.handles().get(1));
    }

    @Test
    void aRetriedMessageIsGivenWithItsOriginalTopicAndItsReceipt() throws Exception {
        String retry = PopRetryTopics.v1("g", "T");
        topics.createIfAbsent(retry, 1, Perm.READ | Perm.WRITE);
        put(retry, "again");
        PopResult result = service.pop(new PopRequest("g", "T", -1, 32, 5000, 0, PopRequest.INIT_MODE_MIN, null, null,
            false)).get();
        assertEquals(1, result.messages().size());
        MessageExt m = MessageDecoder.decode(ByteBuffer.wrap(result.messages().get(0)), true, true);
        assertNotNull(m);
        assertEquals("T", m.getTopic());
        assertEquals("again", new String(m.getBody(), StandardCharsets.UTF_8));
        assertEquals(result.handles().get(0).extraInfo(), m.getProperty(PopConstants.POP_CK));
        assertEquals(PopHandle.RETRY_V1, PopHandle.decode(m.getProperty(PopConstants.POP_CK)).retryFlag());
        assertEquals("1 0 0", result.startOffsetInfo());
        assertEquals(1, offsets.queryOffset("g", retry, 0));
    }

    @Test
    void ackAndChangeOfInvisibleTimeStoreTheirRecords() throws Exception {
        put("T", "m0");
        put("T", "m1");
        PopResult popped = service.pop(new PopRequest("g", "T", 0, 32, 5000, 0, PopRequest.INIT_MODE_MIN, null, null,
            false)).get();
        PopHandle second = popped.handles().get(1);
        ChangeInvisibleResult changed = service.changeInvisibleTime("g", "T", 0, 1, second.extraInfo(), 9000);
        assertTrue(changed.outcome().isSuccess(), changed.outcome().toString());
        assertEquals(1, changed.newHandle().ckQueueOffset(), "the new receipt names the new CK");
        assertEquals(9000, changed.newHandle().invisibleTime());
        CheckPoint newCk = CheckPoint.fromJson(reviveRecord(1).body());
        assertEquals(1, newCk.startOffset());
        assertEquals(List.of(0), newCk.diffs());
        PopRecords.Ack oldAck = PopRecords.Ack.fromJson(reviveRecord(2).body());
        assertEquals(new PopRecords.Ack(1, 0, "g", "T", 0, popped.popTime(), "broker-a"), oldAck);

        assertTrue(service.ack("g", "T", 0, 1, changed.newHandle().extraInfo()).isSuccess());
        PopRecords.Ack ack = PopRecords.Ack.fromJson(reviveRecord(3).body());
        assertEquals(newCk.matchKey(), ack.matchKey(), "the ACK matches the CK the change wrote");
        assertEquals(ResponseCode.NO_MESSAGE, service.ack("g", "T", 0, 7, second.extraInfo()).code());
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, service.ack("g", "T", 0, 1, "garbage").code());
    }

    private static PopRequest request(String topic, int max, boolean order) {
        return new PopRequest("g", topic, -1, max, 5000, 0, PopRequest.INIT_MODE_MIN, null, null, order);
    }

    private void assertRefused(PopRequest request, int code, String remarkPart) throws Exception {
        PopResult result = service.pop(request).get();
        if (code == ResponseCode.SUCCESS) {
            assertEquals(ResponseCode.POLLING_TIMEOUT, result.outcome().code(), "nothing to pop: " + result.outcome());
            return;
        }
        assertEquals(code, result.outcome().code(), result.outcome().toString());
        assertTrue(result.outcome().remark().contains(remarkPart), result.outcome().remark());
    }

    private StoredMessage reviveRecord(long offset) {
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(REVIVE, 0) > offset);
        return store.lookMessageByOffset(store.getCommitLogOffsetInQueue(REVIVE, 0, offset));
    }

    private void put(String topic, String body) throws Exception {
        long before = store.getMaxOffsetInQueue(topic, 0);
        BrokerMessage m = BrokerMessage.builder().topic(topic).queueId(0).body(body.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(Map.of(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
                "ID-" + body))).bornTimestamp(1).bornHost(HOST).storeHost(HOST).build();
        store.asyncPutMessage(m).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(topic, 0) == before + 1);
    }
}
