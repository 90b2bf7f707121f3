package io.basalt.store.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoredMessage;
import io.basalt.store.queue.ConsumeQueueEntry;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Re-puts of due timers: what is retried, for how long, and what is set aside. */
class TimerDeliveryTest {
    @TempDir
    Path root;
    private final Deque<PutMessageStatus> answers = new ArrayDeque<>();
    private final List<BrokerMessage> puts = new ArrayList<>();
    private TimerDelivery delivery;

    private final TimerStoreAccess store = new TimerStoreAccess() {
        @Override
        public long nowMs() {
            return 1_700_000_006_000L;
        }

        @Override
        public long wheelQueueMinOffset() {
            return 0;
        }

        @Override
        public long wheelQueueMaxOffset() {
            return 0;
        }

        @Override
        public ConsumeQueueEntry wheelQueueEntry(long offset) {
            return null;
        }

        @Override
        public long wheelQueueStoreTimestamp(long offset) {
            return -1;
        }

        @Override
        public StoredMessage read(long commitLogOffset) {
            return null;
        }

        @Override
        public long commitLogMinOffset() {
            return 0;
        }

        @Override
        public long commitLogMaxOffset() {
            return 0;
        }

        @Override
        public synchronized CompletableFuture<PutMessageResult> put(BrokerMessage message) {
            puts.add(message);
            PutMessageStatus s = answers.isEmpty() ? PutMessageStatus.PUT_OK : answers.poll();
            return CompletableFuture.completedFuture(s == PutMessageStatus.PUT_OK
                ? new PutMessageResult(s, null) : PutMessageResult.rejected(s));
        }
    };

    private TimerDelivery delivery(boolean skipUnknownError) {
        TimerMetrics metrics = new TimerMetrics(root.resolve("timermetrics"), store::nowMs);
        metrics.add("T", 1);
        delivery = new TimerDelivery(store, 100, skipUnknownError, 1, 1, metrics);
        return delivery;
    }

    @AfterEach
    void stop() {
        if (delivery != null) {
            delivery.shutdown(1000);
        }
    }

    private static StoredMessage record() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("UNIQ_KEY", "U1");
        p.put("TIMER_DELAY_SEC", "5");
        p.put("TIMER_OUT_MS", "1700000005000");
        p.put("REAL_TOPIC", "T");
        p.put("REAL_QID", "2");
        InetSocketAddress host = new InetSocketAddress("127.0.0.1", 10911);
        return new StoredMessage(200, 0, 0, 0, 7, 4, 1000, 0, 1_699_999_999_000L, host, 1_700_000_000_000L, host, 1, 0,
            new byte[] {42}, "rmq_sys_wheel_timer", MessageProperties.toPropertiesString(p));
    }

    private boolean deliver(TimerDelivery d, AtomicBoolean mayGoOn) throws Exception {
        return d.deliver(new TimerDelivery.Item(record(), 1_700_000_000_000L, false), mayGoOn::get).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aDueMessageGoesToItsRealTopicWithRocketMQsProperties() throws Exception {
        TimerDelivery d = delivery(false);
        long[] due = {0};
        d.setListener((topic, dueMillis, stored) -> due[0] = dueMillis);

        assertTrue(deliver(d, new AtomicBoolean(true)));

        BrokerMessage m = puts.get(0);
        assertEquals("T", m.topic());
        assertEquals(2, m.queueId());
        assertEquals(7, m.flag());
        assertEquals(1, m.reconsumeTimes());
        assertTrue(m.dueRedelivery());
        Map<String, String> p = MessageProperties.parse(m.propertiesString());
        assertEquals("T", p.get("REAL_TOPIC"));
        assertEquals("2", p.get("REAL_QID"));
        assertEquals("1700000005000", p.get("TIMER_OUT_MS"));
        assertEquals("1700000000000", p.get("TIMER_ENQUEUE_MS"));
        assertEquals("1700000006000", p.get("TIMER_DEQUEUE_MS"));
        assertEquals(1_700_000_005_000L, due[0], "store time + TIMER_DELAY_SEC");
        assertEquals(1, d.delivered());
    }

    @Test
    void aFullDiskIsWaitedOutNeverDropped() throws Exception {
        TimerDelivery d = delivery(false);
        for (int i = 0; i < 6; i++) {
            answers.add(PutMessageStatus.SERVICE_NOT_AVAILABLE);
        }

        assertTrue(deliver(d, new AtomicBoolean(true)));

        assertEquals(7, puts.size(), "retried until the store took it");
        assertEquals(1, d.delivered());
        assertEquals(0, d.setAside());
    }

    @Test
    void anotherRefusalIsRetriedAFewTimesThenSetAside() throws Exception {
        TimerDelivery d = delivery(false);
        for (int i = 0; i < 10; i++) {
            answers.add(PutMessageStatus.UNKNOWN_ERROR);
        }

        assertTrue(deliver(d, new AtomicBoolean(true)), "settled: the wheel goes on");

        assertEquals(1 + TimerDelivery.RETRIES, puts.size());
        assertEquals(1, d.setAside());
        assertEquals(0, d.delivered());
    }

    @Test
    void anIllegalMessageOrSkipUnknownErrorSetsItAsideAtOnce() throws Exception {
        TimerDelivery d = delivery(false);
        answers.add(PutMessageStatus.MESSAGE_ILLEGAL);
        assertTrue(deliver(d, new AtomicBoolean(true)));
        assertEquals(1, puts.size());
        d.shutdown(1000);

        puts.clear();
        TimerDelivery skipping = delivery(true);
        answers.add(PutMessageStatus.UNKNOWN_ERROR);
        assertTrue(deliver(skipping, new AtomicBoolean(true)));
        assertEquals(1, puts.size());
        assertEquals(1, skipping.setAside());
    }

    @Test
    void deliveryStoppedWhileWaitingLeavesTheMessageForTheNextRead() throws Exception {
        TimerDelivery d = delivery(false);
        answers.add(PutMessageStatus.SERVICE_NOT_AVAILABLE);
        AtomicBoolean mayGoOn = new AtomicBoolean(true);
        CompletableFuture<Boolean> f = d.deliver(new TimerDelivery.Item(record(), 0, false), mayGoOn::get);
        mayGoOn.set(false);

        assertFalse(f.get(10, TimeUnit.SECONDS), "not settled: the slot is read again");
        assertEquals(0, d.setAside());
    }
}
