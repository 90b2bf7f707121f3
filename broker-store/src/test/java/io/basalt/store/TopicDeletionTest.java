package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.basalt.store.commitlog.MessageRecordDecoder;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MessageStore#deleteTopics}: queues and counters go, and nothing brings the old messages back. */
class TopicDeletionTest {
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

    private void restart() throws IOException {
        if (store != null) {
            store.shutdown();
        }
        store = StoreTestSupport.openStarted(root, clock, diskUsage);
    }

    /** Kills the store as kill -9 would leave it: files as they are, the abort marker there. */
    private void crashAndRestart() throws IOException {
        if (store != null) {
            store.shutdown();
            store = null;
        }
        Files.createFile(root.resolve("abort"));
        restart();
    }

    private void put(String topic, int n, int queues, String prefix) {
        for (int i = 0; i < n; i++) {
            PutMessageResult r = store.asyncPutMessage(message(topic, i % queues, null, null, prefix + i)).join();
            assertEquals(PutMessageStatus.PUT_OK, r.status());
        }
        long end = store.getMaxPhyOffset();
        await().atMost(WAIT).until(() -> store.getReputFromOffset() == end);
    }

    private List<String> pullAll(String topic, int queueId) {
        List<String> bodies = new ArrayList<>();
        long offset = store.getMinOffsetInQueue(topic, queueId);
        while (true) {
            try (GetMessageResult r = store.getMessage("g", topic, queueId, offset, 32, null)) {
                if (r.status() != GetMessageStatus.FOUND) {
                    return bodies;
                }
                r.messages().forEach(b -> bodies.add(body(b)));
                offset = r.nextBeginOffset();
            }
        }
    }

    private static String body(SelectedBuffer b) {
        return new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body());
    }

    private Path topicDir(String topic) {
        return root.resolve("consumequeue").resolve(topic);
    }

    @Test
    void aDeletedTopicIsEmptyAndStartsAgainAtOffsetZero() throws IOException {
        restart();
        put("T", 20, 2, "old-");
        put("U", 5, 1, "u-");

        assertEquals(1, store.deleteTopics(Set.of("T", "NeverWritten")));

        assertEquals(0, store.getMaxOffsetInQueue("T", 0));
        assertEquals(0, store.getMaxOffsetInQueue("T", 1));
        assertFalse(Files.exists(topicDir("T")), "the topic's consume queue files and directories are deleted");
        try (GetMessageResult r = store.getMessage("g", "T", 0, 0, 32, null)) {
            assertEquals(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, r.status());
        }
        assertEquals(List.of("u-0", "u-1", "u-2", "u-3", "u-4"), pullAll("U", 0), "other topics are untouched");

        PutMessageResult again = store.asyncPutMessage(message("T", 0, null, null, "new")).join();
        assertEquals(0, again.appendResult().queueOffset(), "the queue-offset counter was removed");
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        assertEquals(List.of("new"), pullAll("T", 0));
        assertEquals(6, store.asyncPutMessage(message("U", 0, null, null, "u-5")).join().appendResult().queueOffset() + 1);
    }

    @Test
    void aDeletedTopicStaysDeletedAfterACleanRestart() throws IOException {
        restart();
        put("T", 20, 2, "old-");
        store.deleteTopics(Set.of("T"));

        // no queue ends beyond the old records, so the restart re-dispatches the log from its start
        restart();

        assertEquals(0, store.getMaxOffsetInQueue("T", 0));
        assertEquals(0, store.getMaxOffsetInQueue("T", 1));
        assertEquals(0, store.asyncPutMessage(message("T", 0, null, null, "next")).join().appendResult().queueOffset());
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        assertEquals(List.of("next"), pullAll("T", 0));
    }

    @Test
    void aDeletedTopicStaysDeletedAfterACrash() throws IOException {
        restart();
        put("T", 20, 2, "old-");
        store.deleteTopics(Set.of("T"));
        put("T", 1, 1, "new-");

        crashAndRestart();

        assertTrue(store.recoveredFromCrash());
        assertEquals(List.of("new-0"), pullAll("T", 0));
        assertEquals(0, store.getMaxOffsetInQueue("T", 1), "crash recovery's re-dispatch did not bring queue 1 back");
        assertEquals(0, store.asyncPutMessage(message("T", 1, null, null, "next")).join().appendResult().queueOffset());
    }

    @Test
    void aCrashInTheMiddleOfADeletionLeavesNoQueueBehind() throws IOException {
        restart();
        put("T", 20, 2, "old-");
        store.shutdown();
        store = null;
        Path saved = root.resolve("saved-T");
        copyTree(topicDir("T"), saved);
        restart();
        store.deleteTopics(Set.of("T"));
        store.shutdown();
        store = null;
        // the deletion was recorded, then the process died before the queue files were gone
        copyTree(saved, topicDir("T"));

        crashAndRestart();

        assertEquals(0, store.getMaxOffsetInQueue("T", 0));
        assertEquals(0, store.getMaxOffsetInQueue("T", 1));
        assertFalse(Files.exists(topicDir("T")));
    }

    @Test
    void aPullHoldingSlicesWhileItsTopicIsDeletedStillReadsItsMessages() throws Exception {
        restart();
        put("T", 40, 1, "old-");
        GetMessageResult held = store.getMessage("g", "T", 0, 0, 32, null);
        assertEquals(GetMessageStatus.FOUND, held.status());

        AtomicBoolean deleted = new AtomicBoolean();
        ExecutorService pullers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> pulls = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                pulls.add(pullers.submit(() -> {
                    int rounds = 0;
                    // pull the topic over and over while it is deleted, and a while after
                    for (int afterDelete = 0; afterDelete < 50; rounds++) {
                        if (deleted.get()) {
                            afterDelete++;
                        }
                        try (GetMessageResult r = store.getMessage("g", "T", 0, rounds % 40, 8, null)) {
                            for (SelectedBuffer b : r.messages()) {
                                assertTrue(body(b).startsWith("old-"), "a held slice reads the record it selected");
                            }
                        }
                    }
                    return rounds;
                }));
            }
            assertEquals(1, store.deleteTopics(Set.of("T")));
            deleted.set(true);
            for (Future<Integer> pull : pulls) {
                assertTrue(pull.get(30, TimeUnit.SECONDS) > 0);
            }
        } finally {
            pullers.shutdownNow();
            assertTrue(pullers.awaitTermination(10, TimeUnit.SECONDS));
        }

        List<String> bodies = held.messages().stream().map(TopicDeletionTest::body).toList();
        assertEquals(32, bodies.size());
        for (int i = 0; i < bodies.size(); i++) {
            assertEquals("old-" + i, bodies.get(i), "the slices held across the deletion are intact");
        }
        held.close();
        try (GetMessageResult r = store.getMessage("g", "T", 0, 0, 32, null)) {
            assertEquals(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, r.status());
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
