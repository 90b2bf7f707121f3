package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform.Decision;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The op marker writer on a real store: a marker is written when its text is full or its oldest entry is due, what
 * is pending is written at shutdown, a failed put is retried with the same offsets; bodies in the 5.x form.
 */
class OpMarkerWriterTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    OpMarkerWriter writer;
    final AtomicLong now = new AtomicLong(1_000_000);

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).build());
    }

    @AfterEach
    void close() {
        if (writer != null) {
            writer.shutdown();
        }
        store.shutdown();
    }

    /** The bodies of the markers written so far, as text. */
    List<String> markers() {
        await().atMost(ofSeconds(5)).until(() -> store.getReputFromOffset() >= store.getMaxPhyOffset());
        List<String> bodies = new ArrayList<>();
        for (long o = 0; o < store.getMaxOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0); o++) {
            StoredMessage m = store.lookMessageByOffset(store.getCommitLogOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0, o));
            bodies.add(new String(m.body(), java.nio.charset.StandardCharsets.US_ASCII));
        }
        return bodies;
    }

    /** All offsets the markers carry, in order. */
    List<Long> markedOffsets() {
        List<Long> all = new ArrayList<>();
        for (String body : markers()) {
            all.addAll(OpMarkerBody.parse(body.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        }
        return all;
    }

    @Test
    void aFullTextIsWrittenAtOnceInMarkersOfAboutTheMaxSize() {
        writer = new OpMarkerWriter(store, BROKER, 20, 3_600_000, now::get);
        writer.start();

        // "100," .. "119,": 4 characters each; the text passes 20 characters at the 6th
        LongStream.range(100, 120).forEach(writer::add);

        await().atMost(ofSeconds(5)).until(() -> writer.offsetsWritten() >= 15);
        List<String> bodies = markers();
        assertEquals("100,101,102,103,104,", bodies.get(0), "filled up to the max size");
        assertTrue(bodies.stream().allMatch(b -> b.length() == 20), bodies.toString());
        assertEquals(LongStream.range(100, 100 + bodies.size() * 5L).boxed().toList(), markedOffsets());
    }

    @Test
    void aSmallTextIsWrittenWhenItsOldestEntryIsDue() throws Exception {
        writer = new OpMarkerWriter(store, BROKER, 4096, 3000, now::get);
        writer.add(7);
        writer.add(9);

        assertEquals(0, writer.doWork(), "not yet due");
        now.addAndGet(2999);
        assertEquals(0, writer.doWork());
        now.addAndGet(1);
        assertEquals(2, writer.doWork());

        assertEquals(List.of("7,9,"), markers());
        assertEquals(0, writer.pendingCount());
    }

    @Test
    void theIntervalWritesOnItsOwnWithARunningThread() {
        writer = new OpMarkerWriter(store, BROKER, 4096, 50, System::currentTimeMillis);
        writer.start();
        writer.add(3);

        await().atMost(ofSeconds(5)).until(() -> writer.markersWritten() == 1);
        assertEquals(List.of("3,"), markers());
    }

    @Test
    void everythingPendingIsWrittenAtShutdown() {
        writer = new OpMarkerWriter(store, BROKER, 4096, 3_600_000, now::get);
        writer.start();
        writer.add(1);
        writer.add(2);
        writer.add(4);

        writer.shutdown();

        assertEquals(List.of("1,2,4,"), markers());
    }

    @Test
    void aFailedPutIsRetriedWithTheSameOffsetsAndNothingIsLost() {
        AtomicInteger refusals = new AtomicInteger();
        store.addPutTransform(m -> TransactionalMessages.OP_HALF_TOPIC.equals(m.topic()) && refusals.getAndIncrement() < 2
            ? Decision.refuse(PutMessageStatus.SERVICE_NOT_AVAILABLE, "disk full, say") : Decision.append(m));
        writer = new OpMarkerWriter(store, BROKER, 4096, 10, System::currentTimeMillis);
        writer.start();
        writer.add(11);
        writer.add(12);

        await().atMost(ofSeconds(10)).until(() -> writer.markersWritten() == 1);
        writer.add(13);
        await().atMost(ofSeconds(10)).until(() -> writer.offsetsWritten() == 3);

        assertEquals(2, writer.writeFailures());
        assertEquals(List.of(11L, 12L, 13L), markedOffsets());
    }
}
