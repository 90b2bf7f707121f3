package io.basalt.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
}
