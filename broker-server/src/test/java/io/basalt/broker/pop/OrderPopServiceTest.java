package io.basalt.broker.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

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
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Order POP in PopService on a real store with a hand-driven clock: no checkpoint and revive queue 999, the offset
 * moved by ACK only, a blocked queue skipped, a same-attempt replay, delivery counts in {@code orderCountInfo},
 * CHANGE_MESSAGE_INVISIBLETIME keeping the batch's popTime, parked pops woken by the unblocking ACK, and the state
 * written to {@code consumerOrderInfo.json}.
 */
class OrderPopServiceTest {
    static final String REVIVE = "rmq_sys_REVIVE_LOG_DefaultCluster";
    static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    ConsumerOffsetManager offsets;
    PopLongPolling polling = new PopLongPolling(10);
    AtomicLong now = new AtomicLong(1_700_000_000_000L);
    OrderInfoTable orders;
    PopService service;

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system());
        store.load();
        store.start();
        SubscriptionGroupManager groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        TopicConfigManager topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        topics.createIfAbsent("T", 1, Perm.READ | Perm.WRITE);
        topics.createIfAbsent(REVIVE, 1, Perm.READ | Perm.WRITE);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        orders = OrderInfoTable.open(dir.resolve("config"));
        service = new PopService(store, topics, groups, offsets, new ConsumerFilters(false), HOST, () -> true,
            () -> true, now::get, new PopCounters(), polling, new PopService.Settings("broker-a", REVIVE, 1, 20_000),
            orders);
    }

    @AfterEach
    void close() {
        polling.shutdown();
        store.shutdown();
    }

    @Test
    void anOrderBatchBlocksTheQueueUntilAckedAndTheOffsetMovesOnlyOnAck() throws Exception {
        put("m0");
        put("m1");
        PopResult first = pop("a1", 0);
        assertEquals(2, first.messages().size());
        assertEquals(PopHandle.ORDER_REVIVE_QID, first.reviveQid());
        assertEquals(PopHandle.ORDER_REVIVE_QID, first.handles().get(0).reviveQid());
        assertEquals("0 qo0%0 0;0 qo0%1 0;0 0 0", first.orderCountInfo());
        assertEquals(0, store.getMaxOffsetInQueue(REVIVE, 0), "order POP stores no checkpoint");
        assertEquals(0, offsets.queryOffset("g", "T", 0), "the offset waits for the ACK");

        put("m2");
        assertEquals(ResponseCode.POLLING_TIMEOUT, pop("a2", 0).outcome().code(), "the queue is blocked");

        assertTrue(service.ack("g", "T", 0, 0, first.handles().get(0).extraInfo()).isSuccess());
        assertEquals(1, offsets.queryOffset("g", "T", 0));
        assertEquals(ResponseCode.POLLING_TIMEOUT, pop("a3", 0).outcome().code(), "offset 1 still blocks");
        assertTrue(service.ack("g", "T", 0, 1, first.handles().get(1).extraInfo()).isSuccess());
        assertEquals(2, offsets.queryOffset("g", "T", 0));

        PopResult next = pop("a4", 0);
        assertEquals("0 0 2", next.msgOffsetInfo());
        assertTrue(service.ack("g", "T", 0, 0, first.handles().get(0).extraInfo()).isSuccess(),
            "an ACK below the committed offset is ignored");
        assertEquals(2, offsets.queryOffset("g", "T", 0));
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, service.ack("g", "T", 0, 3,
            new PopHandle(2, next.popTime(), 60_000, 999, 0, "broker-a", 0, 3, -1).extraInfo()).code(),
            "an offset outside the batch");
    }

    @Test
    void theSameAttemptGetsTheSameMessagesAndAReDeliveryCountsOneMore() throws Exception {
        put("m0");
        put("m1");
        PopResult first = pop("a1", 0);
        now.addAndGet(1000);
        PopResult replay = pop("a1", 0);
        assertEquals(first.popTime(), replay.popTime());
        assertEquals(first.handles(), replay.handles());
        assertEquals("0 qo0%0 0;0 qo0%1 0;0 0 0", replay.orderCountInfo());

        assertTrue(service.ack("g", "T", 0, 0, first.handles().get(0).extraInfo()).isSuccess());
        now.addAndGet(60_000);
        PopResult again = pop("a2", 0);
        assertEquals("0 0 1", again.msgOffsetInfo(), "the un-acked message comes back after the invisible time");
        assertEquals("0 qo0%1 1;0 0 1", again.orderCountInfo());
    }

    @Test
    void changeOfInvisibleTimeKeepsTheBatchPopTime() throws Exception {
        put("m0");
        PopResult first = pop("a1", 0);
        now.addAndGet(1000);
        ChangeInvisibleResult changed = service.changeInvisibleTime("g", "T", 0, 0,
            first.handles().get(0).extraInfo(), 10_000);
        assertTrue(changed.outcome().isSuccess(), changed.outcome().toString());
        assertEquals(first.popTime(), changed.newHandle().popTime());
        assertEquals(11_000, changed.newHandle().invisibleTime());
        assertEquals(PopHandle.ORDER_REVIVE_QID, changed.newHandle().reviveQid());
        now.addAndGet(9_500);
        assertEquals(ResponseCode.POLLING_TIMEOUT, pop("a2", 0).outcome().code(), "still invisible");
        now.addAndGet(1000);
        assertEquals("0 qo0%0 1;0 0 1", pop("a3", 0).orderCountInfo());
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, service.changeInvisibleTime("g", "T", 0, 0,
            first.handles().get(0).extraInfo(), 10_000).outcome().code(), "the first batch is gone");
    }

    @Test
    void anAckThatUnblocksTheQueueWakesAParkedPop() throws Exception {
        put("m0");
        PopResult first = pop("a1", 0);
        put("m1");
        CompletableFuture<PopResult> parked = service.pop(new PopRequest("g", "T", -1, 32, 60_000, 15_000,
            PopRequest.INIT_MODE_MIN, null, null, true, "a2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> polling.parkedCount() == 1);
        assertFalse(parked.isDone());
        assertTrue(service.ack("g", "T", 0, 0, first.handles().get(0).extraInfo()).isSuccess());
        PopResult woken = parked.get();
        assertEquals("0 0 1", woken.msgOffsetInfo());
    }

    @Test
    void theStateIsWrittenInRocketMqsFile() throws Exception {
        put("m0");
        pop("a1", 0);
        service.persistOrderInfo();
        assertTrue(Files.exists(dir.resolve("config").resolve(OrderInfoTable.FILE_NAME)));
        OrderInfoTable reopened = OrderInfoTable.open(dir.resolve("config"));
        assertTrue(reopened.blocked("T", "g", 0, "other", now.get()) instanceof OrderInfoTable.Blocked,
            "the reopened table still blocks the queue");
    }

    private PopResult pop(String attemptId, long pollTime) throws Exception {
        return service.pop(new PopRequest("g", "T", -1, 32, 60_000, pollTime, PopRequest.INIT_MODE_MIN, null, null,
            true, attemptId)).get();
    }

    private void put(String body) throws Exception {
        long before = store.getMaxOffsetInQueue("T", 0);
        BrokerMessage m = BrokerMessage.builder().topic("T").queueId(0).body(body.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(Map.of(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
                "ID-" + body))).bornTimestamp(1).bornHost(HOST).storeHost(HOST).build();
        store.asyncPutMessage(m).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == before + 1);
    }
}
