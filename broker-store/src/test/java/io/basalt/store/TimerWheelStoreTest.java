package io.basalt.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.basalt.store.commitlog.MessageRecordDecoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The timer wheel inside a running store: timer messages wait in rmq_sys_wheel_timer and come back when due. */
class TimerWheelStoreTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path root;
    private MessageStore store;
    private final StoreTestSupport.SettableClock clock = new StoreTestSupport.SettableClock(Instant.ofEpochMilli(T0));

    static StoreConfig.Builder timerConfig(Path root) {
        return StoreTestSupport.config(root, FlushDiskType.ASYNC_FLUSH).toBuilder().timerPrecisionMs(1000)
            .mappedFileSizeTimerLog(52 * 20 + 16).timerFlushIntervalMs(50);
    }

    private MessageStore open(StoreConfig config) throws IOException {
        MessageStore s = MessageStore.open(config, StoreTestSupport.environment(clock, new AtomicReference<>(0.1)));
        s.load();
        s.start();
        s.addPutTransform(s.timerMessages().putTransform());
        s.timerMessages().setDequeueEnabled(true);
        return s;
    }

    @AfterEach
    void close() {
        StoreTestSupport.shutdownAndCheckMappings(store);
    }

    static BrokerMessage timer(String topic, int queueId, String body, String key, String value) {
        BrokerMessage m = StoreTestSupport.message(topic, queueId, null, null, body);
        Map<String, String> props = MessageProperties.parse(m.propertiesString());
        props.put(key, value);
        return m.toBuilder().properties(props).build();
    }

    private List<StoredMessage> readAll(String topic, int queueId) {
        List<StoredMessage> found = new ArrayList<>();
        try (GetMessageResult r = store.getMessage("g", topic, queueId, 0, 64, null)) {
            r.messages().forEach(b -> found.add(MessageRecordDecoder.decode(b.buffer().duplicate())));
        }
        return found;
    }

    @Test
    void aTimerMessageWaitsInTheWheelAndIsDeliveredToItsTopicWhenDue() throws IOException {
        store = open(timerConfig(root).build());
        store.timerMessages().setDequeueEnabled(true);
        List<long[]> deliveries = new ArrayList<>();
        store.timerMessages().setDeliveryListener((t, due, stored) -> {
            synchronized (deliveries) {
                deliveries.add(new long[] {due, stored});
            }
        });

        PutMessageResult r = store.asyncPutMessage(timer("T", 2, "a", "TIMER_DELAY_MS", "5300")).join();

        assertEquals(PutMessageStatus.PUT_OK, r.status());
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 1);
        assertEquals(0, store.getMaxOffsetInQueue("T", 2), "not delivered before it is due");
        clock.set(Instant.ofEpochMilli(T0 + 5_000));
        await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
        assertEquals(0, store.getMaxOffsetInQueue("T", 2), "its slot [T0+5000, T0+6000) has not ended");
        clock.set(Instant.ofEpochMilli(T0 + 6_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 2) == 1);
        StoredMessage m = readAll("T", 2).get(0);
        assertEquals("a", new String(m.body()));
        Map<String, String> p = m.propertyMap();
        assertEquals(String.valueOf(T0 + 5_000), p.get("TIMER_OUT_MS"));
        assertEquals("T", p.get("REAL_TOPIC"), "REAL_TOPIC stays in the stored record, as RocketMQ leaves it");
        assertEquals("2", p.get("REAL_QID"));
        assertEquals("5300", p.get("TIMER_DELAY_MS"));
        assertEquals(String.valueOf(T0), p.get("TIMER_ENQUEUE_MS"));
        assertEquals(String.valueOf(T0 + 6_000), p.get("TIMER_DEQUEUE_MS"));
        await().atMost(WAIT).until(() -> store.timerMessages().stats().delivered() == 1);
        synchronized (deliveries) {
            assertEquals(1, deliveries.size());
            long putAt = readAll("rmq_sys_wheel_timer", 0).get(0).storeTimestamp();
            assertEquals(putAt + 5_300, deliveries.get(0)[0], "due = the broker's time at the put + TIMER_DELAY_MS");
        }
        assertEquals(0, store.timerMessages().stats().pending());
    }

    @Test
    void withTheWheelDisabledATimerMessageIsRefused() throws IOException {
        store = open(timerConfig(root).timerWheelEnable(false).build());

        PutMessageResult r = store.asyncPutMessage(timer("T", 0, "a", "TIMER_DELAY_SEC", "10")).join();
        PutMessageResult plain = store.asyncPutMessage(StoreTestSupport.message("T", 0, null, null, "b")).join();

        assertEquals(PutMessageStatus.WHEEL_TIMER_NOT_ENABLE, r.status());
        assertEquals("accurate timer message is not enabled, timerWheelEnable is false", r.reason());
        assertEquals(PutMessageStatus.PUT_OK, plain.status());
        assertTrue(!java.nio.file.Files.exists(root.resolve("timerwheel")), "no wheel file without the wheel");
        assertNull(store.timerMessages().metricsJson());
    }

    private void restart(StoreConfig config) throws IOException {
        store.shutdown();
        store = null;
        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
    }

    private void putTimers(int n, String topic, long deliverMs) {
        List<java.util.concurrent.CompletableFuture<PutMessageResult>> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            puts.add(store.asyncPutMessage(timer(topic, 0, "m" + i, "TIMER_DELIVER_MS", String.valueOf(deliverMs))));
        }
        puts.forEach(f -> assertEquals(PutMessageStatus.PUT_OK, f.join().status()));
    }

    private java.util.Set<String> bodies(String topic) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        List<String> all = new ArrayList<>();
        long offset = 0;
        while (offset < store.getMaxOffsetInQueue(topic, 0)) {
            try (GetMessageResult r = store.getMessage("g", topic, 0, offset, 64, null)) {
                r.messages().forEach(b -> all.add(new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body())));
                offset = r.nextBeginOffset();
            }
        }
        seen.addAll(all);
        assertEquals(all.size(), seen.size(), "no message delivered twice: " + all);
        return seen;
    }

    @Test
    void aCancelWithTheSameDeliverTimeDropsItsTargetAndIsNeverDelivered() throws IOException {
        store = open(timerConfig(root).build());
        store.timerMessages().setDequeueEnabled(true);
        String at = String.valueOf(T0 + 3_000);
        BrokerMessage target = timer("T", 0, "target", "TIMER_DELIVER_MS", at);
        BrokerMessage keep = timer("T", 0, "keep", "TIMER_DELIVER_MS", at);
        Map<String, String> cancelProps = MessageProperties.parse(
            timer("T", 0, "cancel", "TIMER_DELIVER_MS", at).propertiesString());
        cancelProps.put("TIMER_DEL_UNIQKEY", target.uniqKey());
        BrokerMessage cancel = StoreTestSupport.message("T", 0, null, null, "cancel").toBuilder().properties(cancelProps).build();

        for (BrokerMessage m : List.of(target, keep, cancel)) {
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(m).join().status());
        }
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 3);
        assertEquals(1, store.timerMessages().stats().pending(), "target +1, keep +1, cancel -1");
        clock.set(Instant.ofEpochMilli(T0 + 3_000));
        await().atMost(WAIT).until(() -> store.timerMessages().stats().cancelled() == 1);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().delivered() == 1);
        assertEquals(java.util.Set.of("keep"), bodies("T"));
    }

    @Test
    void aTimerBeyondTheRollWindowIsRolledAndStillNeverEarly() throws IOException {
        store = open(timerConfig(root).timerRollWindowSlot(3).build());
        store.timerMessages().setDequeueEnabled(true);

        putTimers(1, "T", T0 + 10_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 1);
        for (long t = T0 + 1_000; t <= T0 + 9_000; t += 1_000) {
            clock.set(Instant.ofEpochMilli(t));
            long at = t;
            await().atMost(WAIT).until(() -> ((io.basalt.store.timer.TimerMessageStore) store.timerMessages())
                .currReadTimeMs() >= at);
            assertEquals(0, store.getMaxOffsetInQueue("T", 0), "not delivered at " + (t - T0));
        }
        clock.set(Instant.ofEpochMilli(T0 + 10_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        StoredMessage m = readAll("T", 0).get(0);
        assertTrue(Integer.parseInt(m.propertyMap().get("TIMER_ROLL_TIMES")) >= 1, m.propertyMap().toString());
        assertEquals(String.valueOf(T0 + 9_000), m.propertyMap().get("TIMER_OUT_MS"));
        assertTrue(store.getMaxOffsetInQueue("rmq_sys_wheel_timer", 0) >= 2, "the roll was put back into the timer queue");
    }

    @Test
    void afterAnAbruptStopNoUnitIsEnqueuedTwiceAndEveryTimerIsDeliveredOnce() throws IOException {
        StoreConfig config = timerConfig(root).timerFlushIntervalMs(3_600_000).build();
        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
        byte[] staleCheckpoint = java.nio.file.Files.readAllBytes(root.resolve("config/timercheck"));

        putTimers(30, "T", T0 + 2_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 30);
        store.shutdown();
        store = null;
        // the process died before its next timer flush: the checkpoint still says nothing was enqueued
        java.nio.file.Files.write(root.resolve("config/timercheck"), staleCheckpoint);
        java.nio.file.Files.createFile(root.resolve("abort"));

        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
        assertEquals(30, ((io.basalt.store.timer.TimerMessageStore) store.timerMessages()).currQueueOffset(),
            "enqueue resumes after the last unit in the log");
        clock.set(Instant.ofEpochMilli(T0 + 2_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 30);
        await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
        assertEquals(30, bodies("T").size());
        assertEquals(0, store.timerMessages().stats().enqueued(), "nothing re-enqueued after the restart");
    }

    @Test
    void aTornTimerLogTailIsCutAndTheUnitsBeforeItAreDelivered() throws IOException {
        StoreConfig config = timerConfig(root).build();
        store = open(config);
        putTimers(5, "T", T0 + 2_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 5);
        store.shutdown();
        store = null;
        Path logFile = root.resolve("timerlog/00000000000000000000");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(logFile.toFile(), "rw")) {
            raf.seek(5 * 52);
            raf.writeInt(52);          // half a unit: a size, then a magic no unit has
            raf.writeLong(-1);
            raf.writeInt(0x70);
        }

        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
        clock.set(Instant.ofEpochMilli(T0 + 2_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 5);
        assertEquals(5, bodies("T").size());
        ByteBuffer tail = ByteBuffer.wrap(java.nio.file.Files.readAllBytes(logFile));
        assertEquals(0, tail.getInt(5 * 52), "the torn bytes were zeroed");
    }

    @Test
    void aSlotEndingInATornUnitIsReLinkedFromTheLogWhenTheCheckpointIsGone() throws IOException {
        StoreConfig config = timerConfig(root).build();
        store = open(config);
        putTimers(5, "T", T0 + 2_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 5);
        store.shutdown();
        store = null;
        // the slot's newest unit torn (its lastPos now points past the log's end) and timercheck zeroed, so
        // the log is scanned from its start: the four valid units must be linked into the slot again
        Path logFile = root.resolve("timerlog/00000000000000000000");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(logFile.toFile(), "rw")) {
            raf.seek(4 * 52 + 4);
            raf.writeLong(-1);
            raf.writeInt(0x70);
        }
        Path check = root.resolve("config/timercheck");
        java.nio.file.Files.write(check, new byte[(int) java.nio.file.Files.size(check)]);

        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
        clock.set(Instant.ofEpochMilli(T0 + 2_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) >= 5);
        assertEquals(5, bodies("T").size(), "four re-linked units and the torn one enqueued again from the queue");
    }

    @Test
    void aUnitWhoseRecordIsPastTheCommitLogIsDroppedAndCountedAndTheSlotStillDelivers() throws IOException {
        StoreConfig config = timerConfig(root).build();
        store = open(config);
        putTimers(2, "T", T0 + 2_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 2);
        store.shutdown();
        store = null;
        // a third unit of the same slot whose record the CommitLog lost (e.g. cut after a power loss)
        Path logFile = root.resolve("timerlog/00000000000000000000");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(logFile.toFile(), "rw")) {
            raf.seek(2 * 52);
            raf.writeInt(52);
            raf.writeLong(52);
            raf.writeInt(1);
            raf.writeLong(T0);
            raf.writeInt(1_000);
            raf.writeLong(50L * StoreTestSupport.COMMIT_LOG_FILE_SIZE);
            raf.writeInt(300);
            raf.writeInt("T".hashCode());
            raf.writeLong(0);
        }

        store = open(config);
        store.timerMessages().setDequeueEnabled(true);
        clock.set(Instant.ofEpochMilli(T0 + 2_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 2);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().droppedEntries() == 1);
        await().atMost(WAIT).until(() -> ((io.basalt.store.timer.TimerMessageStore) store.timerMessages())
            .currReadTimeMs() > T0 + 1_000);
        assertEquals(2, bodies("T").size());
    }

    @Test
    void aPrecisionChangeAgainstAnExistingWheelIsRefusedAtStart() throws IOException {
        store = open(timerConfig(root).build());
        putTimers(1, "T", T0 + 5_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 1);
        store.shutdown();
        store = null;

        MessageStore other = MessageStore.open(timerConfig(root).timerPrecisionMs(500).build(),
            StoreTestSupport.environment(clock, new AtomicReference<>(0.1)));
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, other::load);
        other.shutdown();
        assertTrue(e.getMessage().startsWith("timerPrecisionMs=500 but the timer wheel in " + root
            + " was written with timerPrecisionMs=1000 (recorded in"), e.getMessage());

        // a RocketMQ store has no recorded precision: it is inferred from the slot times
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(root.resolve("config/timercheck"),
            java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8), 56);
        }
        MessageStore rocketmq = MessageStore.open(timerConfig(root).timerPrecisionMs(100).build(),
            StoreTestSupport.environment(clock, new AtomicReference<>(0.1)));
        IOException inferred = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, rocketmq::load);
        rocketmq.shutdown();
        assertTrue(inferred.getMessage().contains("was written with timerPrecisionMs=1000 (inferred from the slot times"),
            inferred.getMessage());

        store = open(timerConfig(root).build());
        store.timerMessages().setDequeueEnabled(true);
        clock.set(Instant.ofEpochMilli(T0 + 5_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
    }

    @Test
    void afterADowntimeLongerThanTheWheelEverythingOverdueIsDelivered() throws IOException {
        StoreConfig config = timerConfig(root).build();
        store = open(config);
        putTimers(3, "T", T0 + 5_000);
        putTimers(2, "U", T0 + 2L * 86_400_000 + 5_000);   // beyond the 2-day roll window: rolled once
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 5);

        clock.set(Instant.ofEpochMilli(T0 + 20L * 86_400_000));   // 20 days later: the 14-day wheel wrapped
        restart(config);

        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 3 && store.getMaxOffsetInQueue("U", 0) == 2);
        assertEquals(3, bodies("T").size());
    }

    @Test
    void aHundredThousandTimersDueInOneSecondAreDeliveredWithinSeconds() throws IOException {
        store = open(timerConfig(root).mappedFileSizeCommitLog(64 << 20).mappedFileSizeTimerLog(52 * 200_000 + 16)
            .messageIndexEnable(false).build());
        store.timerMessages().setDequeueEnabled(true);
        putTimers(100_000, "T", T0 + 2_000);
        await().atMost(WAIT).until(() -> store.timerMessages().stats().enqueued() == 100_000);

        long start = System.nanoTime();
        clock.set(Instant.ofEpochMilli(T0 + 2_000));
        await().atMost(WAIT).until(() -> store.timerMessages().stats().delivered() == 100_000);
        long stored = (System.nanoTime() - start) / 1_000_000;
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 100_000);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("100000 due timers stored in " + stored + " ms, consumable in " + ms + " ms");
        assertEquals(0, store.timerMessages().stats().pending());
    }

    @Test
    void aSlaveEnqueuesUpToTheMastersCheckpointAndPromotedDeliversFromTheMastersReadTime() throws IOException {
        store = open(timerConfig(root).build());
        TimerMessages timers = store.timerMessages();
        timers.setDequeueEnabled(false);
        putTimers(5, "T", T0 + 3_000);
        await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
        assertEquals(0, timers.stats().enqueued(), "a slave waits for the master's checkpoint");
        assertEquals(5, timers.stats().enqueueLagMessages());

        ByteBuffer master = ByteBuffer.allocate(56);
        master.putLong(0, T0 + 2_000).putLong(16, 3).putLong(24, 3).putLong(48, 9);
        timers.applyMasterCheckpoint(master.array());
        await().atMost(WAIT).until(() -> timers.stats().enqueued() == 3);
        await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
        assertEquals(3, timers.stats().enqueued(), "never past the master's queue offset");

        timers.setDequeueEnabled(true);
        assertEquals(T0 + 2_000, ((io.basalt.store.timer.TimerMessageStore) timers).currReadTimeMs(),
            "promoted, it reads from the master's lastReadTimeMs");
        clock.set(Instant.ofEpochMilli(T0 + 3_000));
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 5);
        assertEquals(5, bodies("T").size());
        await().atMost(WAIT).until(() -> ByteBuffer.wrap(timers.checkpoint()).getLong(16) == 5);
        byte[] cp = timers.checkpoint();
        assertEquals(56, cp.length);
        assertEquals(5, ByteBuffer.wrap(cp).getLong(24), "the master's offset is its own enqueue position");
        assertTrue(timers.metricsJson().contains("\"timingCount\":{\"T\":{\"count\":0,"), timers.metricsJson());
    }
}
