package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.mappedfile.StoreFiles;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ConsumeQueue and index recovery against the CommitLog, through the MessageStore's load. */
class StoreRecoveryTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;
    private final StoreTestSupport.SettableClock clock = StoreTestSupport.noonClock();
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);
    private MessageStore store;

    @AfterEach
    void shutdown() {
        StoreTestSupport.shutdownAndCheckMappings(store);
    }

    private MessageStore restart() throws IOException {
        if (store != null) {
            store.shutdown();
        }
        store = StoreTestSupport.openStarted(root, clock, diskUsage);
        return store;
    }

    private List<PutMessageResult> putMany(int n, int queues) {
        List<PutMessageResult> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PutMessageResult r = store.asyncPutMessage(message("T", i % queues, null, "key-" + i, "m" + i)).join();
            assertEquals(PutMessageStatus.PUT_OK, r.status());
            results.add(r);
        }
        long end = store.getMaxPhyOffset();
        await().atMost(WAIT).until(() -> store.getReputFromOffset() == end);
        return results;
    }

    private List<String> pullAll(int queueId) {
        List<String> bodies = new ArrayList<>();
        long offset = store.getMinOffsetInQueue("T", queueId);
        while (true) {
            try (GetMessageResult r = store.getMessage("g", "T", queueId, offset, 32, null)) {
                if (r.status() != GetMessageStatus.FOUND) {
                    return bodies;
                }
                r.messages().forEach(b -> bodies.add(new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body())));
                offset = r.nextBeginOffset();
            }
        }
    }

    private Map<String, byte[]> consumeQueueFiles() throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        Path dir = root.resolve("consumequeue");
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    /** What the index answers for each of the keys {@code key-0 .. key-(n-1)}: the records' CommitLog offsets. */
    private Map<String, List<Long>> everyKeyLookup(int n) {
        Map<String, List<Long>> lookups = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            try (QueryMessageResult q = store.queryMessage("T", "key-" + i, 10, 0, Long.MAX_VALUE)) {
                List<Long> offsets = q.messages().stream().map(b -> b.startOffset()).toList();
                assertEquals(1, offsets.size(), "key-" + i + " is found once");
                lookups.put("key-" + i, offsets);
            }
        }
        return lookups;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void overwrite(Path file, long position, ByteBuffer bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(bytes, position);
        }
    }

    private Path consumeQueueFile(int queueId, long firstEntry) {
        return root.resolve("consumequeue/T/" + queueId + "/" + StoreFiles.fileName(firstEntry * 20));
    }

    @Test
    void deletedConsumeQueuesAndIndexAreRebuiltIdentically() throws IOException {
        restart();
        putMany(600, 3); // several CommitLog files, several queue files per queue
        Map<String, List<Long>> before = everyKeyLookup(600);
        store.shutdown();
        store = null;
        Map<String, byte[]> queuesBefore = consumeQueueFiles();

        deleteTree(root.resolve("consumequeue"));
        deleteTree(root.resolve("index"));
        restart();

        Map<String, byte[]> queuesAfter = consumeQueueFiles();
        assertEquals(queuesBefore.keySet(), queuesAfter.keySet());
        for (String name : queuesBefore.keySet()) {
            assertArrayEquals(queuesBefore.get(name), queuesAfter.get(name), name);
        }
        assertEquals(before, everyKeyLookup(600), "the rebuilt index answers every key as the original did");
        assertEquals(200, pullAll(0).size());
        PutMessageResult next = store.asyncPutMessage(message("T", 1, null, null, "next")).join();
        assertEquals(200, next.appendResult().queueOffset(), "queue offsets continue after the rebuild");
    }

    @Test
    void afterACrashTheIndexFilesNotCoveredByTheCheckpointAreRebuilt() throws IOException {
        restart();
        putMany(600, 2); // two keys per message: several full index files of 399 items
        store.flushConsumeQueueService().flushAndRecord();
        long indexMsgTimestamp = store.commitLog().checkpoint().indexMsgTimestamp();
        assertTrue(indexMsgTimestamp > 0, "the newest full, flushed index file is recorded");
        assertTrue(store.commitLog().checkpoint().logicsMsgTimestamp() > 0);
        store.shutdown();
        store = null;
        // the newest index file lost its slot pages (torn by a power loss) and the broker had crashed
        Path newest;
        try (Stream<Path> s = Files.list(root.resolve("index"))) {
            newest = s.max(Comparator.naturalOrder()).orElseThrow();
        }
        overwrite(newest, 40, ByteBuffer.allocate(64 * 4));
        Files.createFile(root.resolve("abort"));

        restart();
        for (int i : new int[] {0, 299, 598, 599}) {
            try (QueryMessageResult q = store.queryMessage("T", "key-" + i, 10, 0, Long.MAX_VALUE)) {
                assertEquals(1, q.messages().size(), "key-" + i);
                assertEquals("m" + i, new String(MessageRecordDecoder.decode(q.messages().get(0).buffer().duplicate()).body()));
            }
        }
    }

    @Test
    void aCommitLogCutBehindTheQueuesTruncatesThem() throws IOException {
        restart();
        List<PutMessageResult> results = putMany(300, 1);
        store.shutdown();
        store = null;
        // the log loses its tail from message 250 on (e.g. the disk lost unflushed pages)
        long cut = results.get(250).appendResult().physicalOffset();
        long fileStart = cut - cut % StoreTestSupport.COMMIT_LOG_FILE_SIZE;
        Path lastFile = root.resolve("commitlog").resolve(StoreFiles.fileName(fileStart));
        overwrite(lastFile, cut - fileStart, ByteBuffer.allocate((int) (StoreTestSupport.COMMIT_LOG_FILE_SIZE - (cut - fileStart))));
        Files.createFile(root.resolve("abort")); // and the broker had crashed
        // pages the disk lost were never flushed: the checkpoint's durable point lies at the cut
        try (io.basalt.store.recovery.StoreCheckpoint checkpoint =
                 io.basalt.store.recovery.StoreCheckpoint.open(root.resolve("checkpoint"))) {
            checkpoint.physicRecoveryOffset(cut);
            checkpoint.flush();
        }

        restart();
        assertEquals(250, store.getMaxOffsetInQueue("T", 0));
        assertEquals(cut, store.getMaxPhysicOffsetInQueue("T", 0));
        try (GetMessageResult r = store.getMessage("g", "T", 0, 250, 32, null)) {
            assertEquals(GetMessageStatus.OFFSET_OVERFLOW_ONE, r.status());
        }
        assertTrue(store.queryMessage("T", "key-260", 10, 0, Long.MAX_VALUE).messages().isEmpty());
        PutMessageResult next = store.asyncPutMessage(message("T", 0, null, "key-new", "new")).join();
        assertEquals(250, next.appendResult().queueOffset());
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 251);
        List<String> bodies = pullAll(0);
        assertEquals(251, bodies.size());
        assertEquals("m249", bodies.get(249));
        assertEquals("new", bodies.get(250));
    }

    @Test
    void aGarbageConsumeQueueTailIsCutAndRefilledFromTheLog() throws IOException {
        restart();
        putMany(200, 2); // queue 0 gets even, queue 1 odd messages; 100 each
        store.shutdown();
        store = null;
        // queue 0 (not the newest in the log) gets garbage over its entries 90..99
        ByteBuffer garbage = ByteBuffer.allocate(10 * 20);
        for (int i = 0; i < 10; i++) {
            garbage.putLong(7).putInt(-3).putLong(0x55);
        }
        garbage.flip();
        overwrite(consumeQueueFile(0, 0), 90 * 20, garbage);

        restart();
        assertNull(store.dispatchAlarm());
        assertEquals(100, store.getMaxOffsetInQueue("T", 0));
        List<String> bodies = pullAll(0);
        assertEquals(100, bodies.size());
        assertEquals("m198", bodies.get(99));
        PutMessageResult next = store.asyncPutMessage(message("T", 0, null, null, "next")).join();
        assertEquals(100, next.appendResult().queueOffset());
    }

    @Test
    void aTruncatedConsumeQueueTailIsRefilledFromTheLog() throws IOException {
        restart();
        putMany(150, 1);
        store.shutdown();
        store = null;
        // the queue's last 30 entries never reached the disk
        overwrite(consumeQueueFile(0, 100), 20 * 20, ByteBuffer.allocate(30 * 20));

        restart();
        assertEquals(150, store.getMaxOffsetInQueue("T", 0));
        assertEquals(150, pullAll(0).size());
        PutMessageResult next = store.asyncPutMessage(message("T", 0, null, null, "next")).join();
        assertEquals(150, next.appendResult().queueOffset());
    }
}
