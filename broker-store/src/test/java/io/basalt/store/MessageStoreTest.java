package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.mappedfile.MappedFile;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MessageStoreTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;
    private final List<MessageStore> opened = new ArrayList<>();
    private final StoreTestSupport.SettableClock clock =
            new StoreTestSupport.SettableClock(StoreTestSupport.nextHourUtc(Instant.now(), 12));
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);

    @AfterEach
    void shutdownAll() {
        for (MessageStore s : opened) {
            s.shutdown();
        }
        assertEquals(0, MappedFile.liveMappings(), "every mapping is released");
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            assertFalse(t.isAlive() && (name.equals("ReputMessageService") || name.equals("FlushConsumeQueueService")
                    || name.equals("DiskSpaceMonitor") || name.equals("CleanCommitLogService")), "thread left behind: " + name);
        }
    }

    private MessageStore start(FlushDiskType flush) throws IOException {
        MessageStore store = MessageStore.open(StoreTestSupport.config(root, flush), StoreTestSupport.environment(clock, diskUsage));
        opened.add(store);
        store.load();
        store.start();
        return store;
    }

    private static PutMessageResult put(MessageStore store, String topic, int queueId, String tags, String keys, String body) {
        PutMessageResult r = store.asyncPutMessage(message(topic, queueId, tags, keys, body)).join();
        assertEquals(PutMessageStatus.PUT_OK, r.status(), r.toString());
        return r;
    }

    private static String body(SelectedBuffer b) {
        return new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body());
    }

    private static List<String> pullAll(MessageStore store, String topic, int queueId) {
        List<String> bodies = new ArrayList<>();
        long offset = store.getMinOffsetInQueue(topic, queueId);
        while (true) {
            try (GetMessageResult r = store.getMessage("g", topic, queueId, offset, 32, null)) {
                if (r.status() != GetMessageStatus.FOUND && r.status() != GetMessageStatus.NO_MATCHED_MESSAGE) {
                    return bodies;
                }
                r.messages().forEach(b -> bodies.add(body(b)));
                offset = r.nextBeginOffset();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FlushDiskType.class)
    void aMessageIsReadablePromptlyAfterItsPutCompletes(FlushDiskType flush) throws IOException {
        MessageStore store = start(flush);
        for (int i = 0; i < 20; i++) {
            PutMessageResult r = put(store, "T", 1, null, null, "m" + i);
            long queueOffset = r.appendResult().queueOffset();
            await().atMost(WAIT).until(() -> {
                try (GetMessageResult g = store.getMessage("g", "T", 1, queueOffset, 1, null)) {
                    return g.status() == GetMessageStatus.FOUND;
                }
            });
            try (GetMessageResult g = store.getMessage("g", "T", 1, queueOffset, 1, null)) {
                assertEquals(r.appendResult().physicalOffset(), g.messages().get(0).startOffset());
            }
        }
        if (flush == FlushDiskType.SYNC_FLUSH) {
            assertTrue(store.getReputFromOffset() <= store.commitLog().flushedOffset(),
                    "under SYNC_FLUSH nothing beyond the flushed offset is dispatched");
        }
    }

    @Test
    void underSyncFlushNoReaderSeesARecordThatForceHasNotCovered() throws IOException {
        MessageStore store = start(FlushDiskType.SYNC_FLUSH);
        int n = 3000;
        long[] nextToRead = {0};
        for (int i = 0; i < n; i++) {
            // WAIT=false: the put completes once written and only wakes the group commit, so the log runs
            // ahead of force(); a dispatcher reading up to the written end would hand those records out.
            BrokerMessage m = BrokerMessage.builder().topic("T").queueId(2).body(("w" + i).getBytes())
                .properties(Map.of(MessageProperties.WAIT_STORE_MSG_OK, "false"))
                .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
                .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(m).join().status());
            nextToRead[0] = readCoveredByForce(store, nextToRead[0]);
        }
        // every record is read in the end, each read checked; how many were read while the puts went on depends on
        // the machine's load (all puts may complete before the first force), so it is not asserted
        await().atMost(WAIT).until(() -> (nextToRead[0] = readCoveredByForce(store, nextToRead[0])) == n);
    }

    /** Reads queue T/2 from {@code from}, failing on any record beyond the flushed offset; the next offset to read. */
    private static long readCoveredByForce(MessageStore store, long from) {
        try (GetMessageResult g = store.getMessage("g", "T", 2, from, 32, null)) {
            long flushed = store.commitLog().flushedOffset();
            for (SelectedBuffer b : g.messages()) {
                assertTrue(b.startOffset() + b.size() <= flushed, "record at " + b.startOffset() + " (" + b.size()
                    + " bytes) is readable but the flushed offset is only " + flushed);
            }
            return g.status() == GetMessageStatus.FOUND ? g.nextBeginOffset() : from;
        }
    }

    @Test
    void readsLookupsAndQueries() throws IOException {
        MessageStore store = start(FlushDiskType.ASYNC_FLUSH);
        List<PutMessageResult> results = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // several CommitLog and ConsumeQueue files
            results.add(put(store, "T", 0, i % 3 == 0 ? "TagA" : "TagB", "order-" + i + " batch-" + (i / 100), "m" + i));
        }
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 300);
        assertEquals(0, store.getMinOffsetInQueue("T", 0));
        long lastEnd = results.get(299).appendResult().physicalOffset() + results.get(299).appendResult().wroteBytes();
        assertEquals(lastEnd, store.getMaxPhysicOffsetInQueue("T", 0));
        assertEquals(results.get(150).appendResult().physicalOffset(), store.getCommitLogOffsetInQueue("T", 0, 150));

        List<String> all = pullAll(store, "T", 0);
        assertEquals(300, all.size());
        assertEquals("m299", all.get(299));
        try (GetMessageResult tagged = store.getMessage("g", "T", 0, 0, 32, MessageFilter.byTags(Set.of("TagA")))) {
            assertEquals(32, tagged.messageCount());
            assertEquals("m3", body(tagged.messages().get(1)));
        }

        long t150 = results.get(150).appendResult().storeTimestamp();
        long byTime = store.getOffsetInQueueByTime("T", 0, t150);
        assertTrue(byTime <= 150 && store.getMessageStoreTimeStamp("T", 0, byTime) == t150);
        assertEquals(300, store.getOffsetInQueueByTime("T", 0, Long.MAX_VALUE));
        assertEquals(299, store.getOffsetInQueueByTime("T", 0, Long.MAX_VALUE, BoundaryType.UPPER));

        StoredMessage m7 = store.lookMessageByOffset(results.get(7).appendResult().physicalOffset());
        assertEquals("m7", new String(m7.body()));
        StoredMessage byId = store.viewMessageById(m7.offsetMsgId());
        assertEquals("m7", new String(byId.body()));
        assertNull(store.viewMessageById("not-an-id"));
        assertNull(store.lookMessageByOffset(results.get(7).appendResult().physicalOffset() + 3));

        try (QueryMessageResult q = store.queryMessage("T", "order-42", 10, 0, Long.MAX_VALUE)) {
            assertEquals(1, q.messages().size());
            assertEquals("m42", body(q.messages().get(0)));
        }
        try (QueryMessageResult q = store.queryMessage("T", "batch-1", 5, 0, Long.MAX_VALUE)) {
            assertEquals(List.of("m199", "m198", "m197", "m196", "m195"), q.messages().stream().map(MessageStoreTest::body).toList());
        }
        try (QueryMessageResult q = store.queryMessage("T", "U-m5", 10, 0, Long.MAX_VALUE)) {
            assertEquals(1, q.messages().size());
        }
        try (QueryMessageResult q = store.queryMessage("Other", "order-42", 10, 0, Long.MAX_VALUE)) {
            assertEquals(0, q.messages().size());
        }
    }

    @Test
    void badReadArgumentsGetAStatusNotAnException() throws IOException {
        MessageStore store = start(FlushDiskType.ASYNC_FLUSH);
        put(store, "T", 0, null, null, "m");
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        assertEquals(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, store.getMessage("g", null, 0, 0, 32, null).status());
        assertEquals(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, store.getMessage("g", "T", -1, 0, 32, null).status());
        assertEquals(GetMessageStatus.OFFSET_TOO_SMALL, store.getMessage("g", "T", 0, -5, 32, null).status());
        try (GetMessageResult r = store.getMessage("g", "T", 0, 0, 0, null)) {
            assertEquals(1, r.messageCount(), "maxMsgNums below 1 reads one message");
        }
        assertEquals(0, store.getMaxOffsetInQueue(null, 0));
        assertEquals(-1, store.getCommitLogOffsetInQueue("T", 0, 99));
        assertNull(store.lookMessageByOffset(-1));
        assertNull(store.lookMessageByOffset(Long.MAX_VALUE));
        try (QueryMessageResult q = store.queryMessage("T", null, 10, 0, Long.MAX_VALUE)) {
            assertTrue(q.messages().isEmpty());
        }
    }

    @Test
    void putsFailFastWhenTheDiskIsFullAndReadsGoOn() throws IOException {
        MessageStore store = start(FlushDiskType.ASYNC_FLUSH);
        put(store, "T", 0, null, null, "before");
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);

        diskUsage.set(0.91);
        store.diskMonitor().doWork();
        PutMessageResult refused = store.asyncPutMessage(message("T", 0, null, null, "refused")).join();
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, refused.status());
        assertTrue(store.isDiskFull());
        assertTrue(store.diskFullReason().contains("diskSpaceWarningLevelRatio"), store.diskFullReason());
        assertEquals(List.of("before"), pullAll(store, "T", 0));

        diskUsage.set(0.80);
        store.diskMonitor().doWork();
        put(store, "T", 0, null, null, "after");
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 2);
        assertEquals(List.of("before", "after"), pullAll(store, "T", 0));
    }
}
