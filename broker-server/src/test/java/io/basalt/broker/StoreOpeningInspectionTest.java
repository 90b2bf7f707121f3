package io.basalt.broker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.StoreOpeningInspection.Finding;
import io.basalt.broker.StoreOpeningInspection.Kind;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.testing.TestStores;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of pending RocketMQ state found in real store files and counted: warnings for what Basalt does not
 * serve, information for the undecided transactions the check service serves.
 */
class StoreOpeningInspectionTest {
    @TempDir
    Path dir;
    private Path root;
    private MessageStore store;

    @BeforeEach
    void open() throws IOException {
        root = dir.resolve("store");
        store = TestStores.start(TestStores.config(root).mappedFileSizeConsumeQueue(6000).build());
        Files.createDirectories(root.resolve("config"));
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private void put(String topic, int queueId, String... bodies) {
        long before = store.getMaxOffsetInQueue(topic, queueId);
        for (String body : bodies) {
            BrokerMessage msg = BrokerMessage.builder().topic(topic).queueId(queueId)
                .body(body.getBytes(StandardCharsets.UTF_8)).properties(Map.of()).bornTimestamp(System.currentTimeMillis())
                .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911))
                .build();
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(msg).join().status());
        }
        await().atMost(Duration.ofSeconds(10))
            .until(() -> store.getMaxOffsetInQueue(topic, queueId) == before + bodies.length);
    }

    private void put(String topic, int queueId, int count) {
        String[] bodies = new String[count];
        java.util.Arrays.fill(bodies, "m");
        put(topic, queueId, bodies);
    }

    /** config/&lt;name&gt; as RocketMQ's fastjson writes it (unquoted integer keys). */
    private void config(String name, String json) throws IOException {
        Files.writeString(root.resolve("config").resolve(name), json);
    }

    private List<Finding> inspect() throws IOException {
        ConsumerOffsetManager offsets = ConsumerOffsetManager.open(root.resolve("config"));
        return new StoreOpeningInspection(root, store, offsets).inspect();
    }

    private static Finding only(List<Finding> findings, Kind kind) {
        assertEquals(1, findings.size(), findings.toString());
        assertEquals(kind, findings.get(0).kind());
        return findings.get(0);
    }

    @Test
    void pendingScheduleMessagesAreNoFindingSinceTheScheduleServiceDeliversThem() throws IOException {
        put("SCHEDULE_TOPIC_XXXX", 2, 5);   // level 3, delivered up to 1: 4 pending
        put("SCHEDULE_TOPIC_XXXX", 3, 3);   // level 4, never delivered: 3 pending
        config("delayOffset.json", "{\"dataVersion\":{\"counter\":3,\"stateVersion\":0,\"timestamp\":1700000000000},"
            + "\"offsetTable\":{1:2,3:1}}");

        assertEquals(List.of(), inspect());
    }

    /** A half record of transaction {@code transactionId} (a check copy repeats its original's id and born time). */
    private void putHalf(String transactionId, long bornTimestamp) {
        long before = store.getMaxOffsetInQueue("RMQ_SYS_TRANS_HALF_TOPIC", 0);
        BrokerMessage msg = BrokerMessage.builder().topic("RMQ_SYS_TRANS_HALF_TOPIC").queueId(0)
            .body("m".getBytes(StandardCharsets.UTF_8))
            .properties(Map.of("__transactionId__", transactionId, "UNIQ_KEY", transactionId, "REAL_TOPIC", "TopicA",
                "REAL_QID", "0", "TRAN_MSG", "true", "PGROUP", "pg"))
            .bornTimestamp(bornTimestamp)
            .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911))
            .build();
        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(msg).join().status());
        await().atMost(Duration.ofSeconds(10))
            .until(() -> store.getMaxOffsetInQueue("RMQ_SYS_TRANS_HALF_TOPIC", 0) == before + 1);
    }

    @Test
    void undecidedTransactionsAreCountedOnceWithTheOldestAgeAsInformationNotAWarning() throws IOException {
        long now = System.currentTimeMillis();
        putHalf("A", now - 300_000);    // 0: before the check offset
        putHalf("B", now - 200_000);    // 1: marked done
        putHalf("C", now - 180_000);    // 2: its check copy (5) is marked done
        putHalf("D", now - 120_000);    // 3: undecided, the oldest
        putHalf("E", now - 60_000);     // 4: marked done
        putHalf("C", now - 180_000);    // 5: check copy of C
        putHalf("F", now - 10_000);     // 6: undecided
        putHalf("F", now - 10_000);     // 7: check copy of F, undecided too: F counts once
        put("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0, "0,1,", "4", "5,");    // 5.x merged and a 4.9 single marker
        config("consumerOffset.json", "{\"offsetTable\":{\"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS\":{0:1},"
            + "\"RMQ_SYS_TRANS_OP_HALF_TOPIC@CID_RMQ_SYS_TRANS\":{0:0}}}");

        Finding f = only(inspect(), Kind.HALF);

        assertEquals(2, f.count(), "D and F are undecided; C is decided by its copy's marker");
        assertFalse(f.warning(), "the check service serves pending half messages: " + f.message());
        assertTrue(f.message().startsWith("2 undecided transactions in RMQ_SYS_TRANS_HALF_TOPIC"), f.message());
        assertTrue(f.message().matches(".*the oldest born 12[0-9] s ago .*"), f.message());
        assertTrue(f.message().contains("the transaction check service asks their producer groups"), f.message());
        assertFalse(f.message().contains("not check"), f.message());
    }

    @Test
    void halfMessagesAllDecidedAreNoFinding() throws IOException {
        long now = System.currentTimeMillis();
        putHalf("A", now - 10_000);
        putHalf("B", now - 10_000);
        put("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0, "0,1,");

        assertEquals(List.of(), inspect());
    }

    /** The store reopened, in a directory of its own, with {@code timerWheelEnable=false}. */
    private void withoutTheWheel() throws IOException {
        store.shutdown();
        root = dir.resolve("store-without-wheel");
        store = TestStores.start(TestStores.config(root).mappedFileSizeConsumeQueue(6000).timerWheelEnable(false).build());
        Files.createDirectories(root.resolve("config"));
    }

    @Test
    void withTheWheelOnTimerMessagesAreNoFindingTheyAreDelivered() throws IOException {
        put("rmq_sys_wheel_timer", 0, 5);
        config("timermetrics", "{\"dataVersion\":{\"counter\":42,\"stateVersion\":0,\"timestamp\":1700000000000},"
            + "\"timingCount\":{\"TopicA\":{\"count\":3,\"timeStamp\":1700000000000}}}");

        assertTrue(inspect().stream().noneMatch(f -> f.kind() == Kind.TIMER), inspect().toString());
    }

    @Test
    void timerMessagesInTheWheelAndNotYetEnqueuedAreCounted() throws IOException {
        withoutTheWheel();
        put("rmq_sys_wheel_timer", 0, 5);
        try (RandomAccessFile wheel = new RandomAccessFile(root.resolve("timerwheel").toFile(), "rw")) {
            wheel.setLength(1_209_600L * 32);
        }
        Files.createDirectories(root.resolve("timerlog"));
        Files.write(root.resolve("timerlog/00000000000000000000"), new byte[52]);
        config("timermetrics", "{\"dataVersion\":{\"counter\":42,\"stateVersion\":0,\"timestamp\":1700000000000},"
            + "\"timingCount\":{\"TopicA\":{\"count\":3,\"timeStamp\":1700000000000},"
            + "\"TopicB\":{\"count\":4,\"timeStamp\":1700000000000}}}");
        ByteBuffer check = ByteBuffer.allocate(4096);
        check.putLong(0, 1700000000000L).putLong(8, 52).putLong(16, 2).putLong(24, 2);
        Files.write(root.resolve("config/timercheck"), check.array());

        Finding f = only(inspect(), Kind.TIMER);
        assertTrue(f.warning(), "not served: a warning");

        assertEquals(10, f.count(), "7 in the wheel, rmq_sys_wheel_timer offsets 2..4 not enqueued");
        assertTrue(f.message().startsWith("10 timer messages pending (7 in the timer wheel per config/timermetrics, 3 in"
            + " rmq_sys_wheel_timer"), f.message());
        assertTrue(f.message().contains("timerWheelEnable=false: they stay stuck in rmq_sys_wheel_timer"), f.message());
    }

    @Test
    void reviveRecordsBeyondTheReviveOffsetAreCounted() throws IOException {
        put("rmq_sys_REVIVE_LOG_DefaultCluster", 0, 4);
        put("rmq_sys_REVIVE_LOG_DefaultCluster", 1, 2);
        config("consumerOffset.json",
            "{\"offsetTable\":{\"rmq_sys_REVIVE_LOG_DefaultCluster@CID_RMQ_SYS_REVIVE_GROUP\":{0:3}}}");

        Finding f = only(inspect(), Kind.POP);
        assertFalse(f.warning(), "served by the revive threads: information");

        assertEquals(3, f.count(), "queue 0 from 3, queue 1 from its start");
        assertTrue(f.message().startsWith("3 POP revive records (checkpoints and acks) in [rmq_sys_REVIVE_LOG_DefaultCluster]"),
            f.message());
    }

    @Test
    void aRocksDbConsumeQueueIsFound() throws IOException {
        Path cq = root.resolve("consumequeue");
        for (String name : new String[] {"CURRENT", "MANIFEST-000005", "OPTIONS-000007", "000009.sst", "LOCK"}) {
            Files.write(cq.resolve(name), new byte[] {1});
        }

        Finding f = only(inspect(), Kind.ROCKSDB);
        assertTrue(f.warning(), "not served: a warning");

        assertEquals(4, f.count());
        assertTrue(f.message().startsWith("consumequeue/ holds a RocksDB consume queue (4 RocksDB files"), f.message());
    }

    @Test
    void aStoreWithOnlyWhatBasaltServesHasNothingToReport() throws IOException {
        put("TopicA", 0, 3);
        put("SCHEDULE_TOPIC_XXXX", 0, 2);
        config("delayOffset.json", "{\"offsetTable\":{1:2}}");

        assertEquals(List.of(), inspect());
    }

    @Test
    void anUnreadableFileIsReportedWithoutStoppingTheOthers() throws IOException {
        withoutTheWheel();
        put("rmq_sys_wheel_timer", 0, 2);
        config("timermetrics", "{not json");
        put("rmq_sys_REVIVE_LOG_DefaultCluster", 0, 1);

        List<Finding> findings = inspect();

        assertEquals(List.of(Kind.TIMER, Kind.POP), findings.stream().map(Finding::kind).toList());
        assertEquals(-1, findings.get(0).count());
        assertTrue(findings.get(0).warning());
        assertTrue(findings.get(0).message().contains("timermetrics"), findings.get(0).message());
    }
}
