package io.basalt.broker.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The revive matching on a real store: a CK whose messages are all acked re-delivers nothing; an un-acked message is
 * re-put exactly once to the POP retry topic (same message id, reconsumeTimes + 1, 1ST_POP_TIME), only once the
 * timer wheel has delivered everything due past its revive time; a message at retryMaxTimes goes to the DLQ; the
 * revive progress covers every record read.
 */
class ReviveQueueReaderTest {
    static final String REVIVE = "rmq_sys_REVIVE_LOG_DefaultCluster";
    static final String TOPIC = "T";
    static final String GROUP = "cg";
    static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    ConsumerOffsetManager offsets;
    SubscriptionGroupManager groups;
    PopCounters counters = new PopCounters();
    AtomicLong timerDeliveredUpTo = new AtomicLong();
    ReviveQueueReader reader;

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system());
        store.load();
        store.start();
        groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        groups.findOrAutoCreate(GROUP);
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        topics.createIfAbsent(TOPIC, 1, Perm.READ | Perm.WRITE);
        topics.createIfAbsent(REVIVE, 1, Perm.READ | Perm.WRITE);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        MessageReviver reviver = new MessageReviver(store, topics, groups, offsets, HOST, counters, new RetryCounts());
        reader = new ReviveQueueReader(store, offsets, REVIVE, 0, reviver, timerDeliveredUpTo::get);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    @Test
    void fullyAckedCheckPointRevivesNothing() throws Exception {
        put(TOPIC, "m0", 0);
        put(TOPIC, "m1", 0);
        CheckPoint ck = ck(0, 2);
        record(PopRecords.CK_TAG, ck.toJson());
        record(PopRecords.ACK_TAG, new PopRecords.Ack(0, 0, GROUP, TOPIC, 0, ck.popTime(), "b").toJson());
        record(PopRecords.BATCH_ACK_TAG, new PopRecords.BatchAck(List.of(1L), 0, GROUP, TOPIC, 0, ck.popTime()).toJson());
        timerDeliveredUpTo.set(ck.reviveTime() + 10_000);

        assertEquals(0, reader.round());
        assertEquals(0, store.getMaxOffsetInQueue(PopRetryTopics.v1(GROUP, TOPIC), 0));
        assertEquals(2, offsets.queryOffset(PopConstants.REVIVE_GROUP, REVIVE, 0), "progress covers every record read");
        assertEquals(0, counters.revived());
    }

    @Test
    void unackedMessageIsRevivedOnceAfterTheAcksCanNoLongerArrive() throws Exception {
        put(TOPIC, "m0", 0);
        put(TOPIC, "m1", 0);
        CheckPoint ck = ck(0, 2);
        record(PopRecords.CK_TAG, ck.toJson());
        record(PopRecords.ACK_TAG, new PopRecords.Ack(0, 0, GROUP, TOPIC, 0, ck.popTime(), "b").toJson());

        timerDeliveredUpTo.set(ck.reviveTime() + ReviveQueueReader.ACK_WAIT_MS - 1);
        assertEquals(0, reader.round(), "an ACK may still be on its way");
        assertEquals(-1, offsets.queryOffset(PopConstants.REVIVE_GROUP, REVIVE, 0), "the CK is not done: no progress");

        timerDeliveredUpTo.set(ck.reviveTime() + ReviveQueueReader.ACK_WAIT_MS);
        assertEquals(1, reader.round());
        String retry = PopRetryTopics.v1(GROUP, TOPIC);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(retry, 0) == 1);
        StoredMessage revived = store.lookMessageByOffset(store.getCommitLogOffsetInQueue(retry, 0, 0));
        StoredMessage original = store.lookMessageByOffset(store.getCommitLogOffsetInQueue(TOPIC, 0, 1));
        assertEquals("m1", new String(revived.body(), StandardCharsets.UTF_8));
        assertEquals(original.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
            revived.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        assertEquals(1, revived.reconsumeTimes());
        assertEquals(Long.toString(ck.popTime()), revived.property(PopConstants.FIRST_POP_TIME));
        assertEquals(0, offsets.queryOffset(GROUP, retry, 0), "the group reads its new retry topic from 0");
        assertEquals(1, offsets.queryOffset(PopConstants.REVIVE_GROUP, REVIVE, 0));

        assertEquals(0, reader.round(), "revived once");
        reader.reset();
        assertEquals(0, reader.round(), "nor again after a restart from the committed progress");
        assertEquals(1, store.getMaxOffsetInQueue(retry, 0));
        assertEquals(1, counters.revived());
    }

    @Test
    void aCheckPointReadAgainAfterItsProgressWasLostIsNotRevivedTwice() throws Exception {
        put(TOPIC, "m0", 0);
        put(TOPIC, "m1", 0);
        CheckPoint ck = ck(0, 2);
        record(PopRecords.CK_TAG, ck.toJson());
        timerDeliveredUpTo.set(ck.reviveTime() + 10_000);
        assertEquals(2, reader.round());
        String retry = PopRetryTopics.v1(GROUP, TOPIC);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(retry, 0) == 2);
        StoredMessage copy = store.lookMessageByOffset(store.getCommitLogOffsetInQueue(retry, 0, 0));
        assertEquals(ck.uniqKey(), copy.property(MessageReviver.REVIVED_FOR_CK));
        // m0 popped again (an offset reset) under a second CK the first run never read
        CheckPoint again = new CheckPoint(0, ck.popTime() + 1, 5000, 1, 0, TOPIC, GROUP, -1, List.of(0), "b");
        record(PopRecords.CK_TAG, again.toJson());

        // a crash before consumerOffset.json held the revive progress: the next start reads both CKs again
        ConsumerOffsetManager lost = ConsumerOffsetManager.open(dir.resolve("config-before-the-revive"));
        ReviveQueueReader restarted = new ReviveQueueReader(store, lost, REVIVE, 0,
            new MessageReviver(store, topics, groups, lost, HOST, counters, new RetryCounts()), timerDeliveredUpTo::get);
        assertEquals(1, restarted.round(), "only the second CK's message");
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(retry, 0) == 3);
        StoredMessage second = store.lookMessageByOffset(store.getCommitLogOffsetInQueue(retry, 0, 2));
        assertEquals("m0", new String(second.body(), StandardCharsets.UTF_8));
        assertEquals(again.uniqKey(), second.property(MessageReviver.REVIVED_FOR_CK));
        assertEquals(1, lost.queryOffset(PopConstants.REVIVE_GROUP, REVIVE, 0), "both CKs done");
        assertEquals(0, restarted.round());
        assertEquals(3, store.getMaxOffsetInQueue(retry, 0));
        assertEquals(3, counters.revived());
    }

    @Test
    void messageAtRetryMaxTimesGoesToTheDlq() throws Exception {
        put(TOPIC, "tired", 16);
        CheckPoint ck = ck(0, 1);
        record(PopRecords.CK_TAG, ck.toJson());
        timerDeliveredUpTo.set(ck.reviveTime() + 10_000);

        assertEquals(1, reader.round());
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("%DLQ%" + GROUP, 0) == 1);
        StoredMessage dead = store.lookMessageByOffset(store.getCommitLogOffsetInQueue("%DLQ%" + GROUP, 0, 0));
        assertEquals(17, dead.reconsumeTimes());
        assertEquals(TOPIC, dead.property("RETRY_TOPIC"));
        assertEquals(0, store.getMaxOffsetInQueue(PopRetryTopics.v1(GROUP, TOPIC), 0));
        assertEquals(1, counters.deadLettered());
        assertEquals(0, counters.revived());
    }

    @Test
    void messageGoneFromTheStoreCountsAsDone() throws Exception {
        CheckPoint ck = ck(5, 1);
        record(PopRecords.CK_TAG, ck.toJson());
        timerDeliveredUpTo.set(ck.reviveTime() + 10_000);
        assertEquals(0, reader.round());
        assertEquals(0, offsets.queryOffset(PopConstants.REVIVE_GROUP, REVIVE, 0));
    }

    private CheckPoint ck(long start, int num) {
        List<Integer> diffs = new java.util.ArrayList<>();
        for (int i = 0; i < num; i++) {
            diffs.add(i);
        }
        return new CheckPoint(start, 1_000_000L, 5000, num, 0, TOPIC, GROUP, -1, diffs, "b");
    }

    private void put(String topic, String body, int reconsumeTimes) throws Exception {
        long before = store.getMaxOffsetInQueue(topic, 0);
        Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "ID-" + body);
        BrokerMessage m = BrokerMessage.builder().topic(topic).queueId(0).body(body.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(props)).bornTimestamp(1).bornHost(HOST)
            .storeHost(HOST).reconsumeTimes(reconsumeTimes).build();
        assertNotNull(store.asyncPutMessage(m).get());
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(topic, 0) == before + 1);
    }

    private void record(String tag, String json) throws Exception {
        long before = store.getMaxOffsetInQueue(REVIVE, 0);
        Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, tag);
        BrokerMessage m = BrokerMessage.builder().topic(REVIVE).queueId(0).body(json.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(props)).bornTimestamp(1).bornHost(HOST)
            .storeHost(HOST).build();
        store.asyncPutMessage(m).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(REVIVE, 0) == before + 1);
    }
}
