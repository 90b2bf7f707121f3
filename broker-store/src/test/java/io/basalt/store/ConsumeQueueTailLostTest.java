package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.mappedfile.StoreFiles;

/**
 * Consume-queue entries lost while the broker was stopped (after a clean stop, so no crash recovery):
 * the start finds the records the recovery scan saw beyond the queue's end and rebuilds the entries,
 * so every message stays readable and no queue offset is handed out twice.
 */
class ConsumeQueueTailLostTest {
    @TempDir
    Path root;
    private final StoreTestSupport.SettableClock clock = StoreTestSupport.noonClock();
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);
    private MessageStore store;

    @AfterEach
    void shutdown() {
        StoreTestSupport.shutdownAndCheckMappings(store);
    }

    private void start() throws IOException {
        store = StoreTestSupport.openStarted(root, clock, diskUsage);
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

    @Test
    void lostTailEntriesAreRebuiltAtACleanStart() throws IOException {
        start();
        for (int i = 0; i < 150; i++) {
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(message("T", i % 2, null, "k" + i, "m" + i)).join().status());
        }
        long end = store.getMaxPhyOffset();
        await().atMost(Duration.ofSeconds(20)).until(() -> store.getReputFromOffset() == end);
        store.shutdown();
        store = null;
        // queue 0 holds 75 entries (files of 100): its last 10 are lost
        Path file = root.resolve("consumequeue/T/0/" + StoreFiles.fileName(0));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(10 * 20), 65 * 20);
        }
        assertEquals(true, Files.exists(file));

        start();
        assertEquals(75, store.getMaxOffsetInQueue("T", 0));
        List<String> bodies = pullAll(0);
        assertEquals(75, bodies.size());
        assertEquals("m148", bodies.get(74));
        PutMessageResult next = store.asyncPutMessage(message("T", 0, null, "k-new", "new")).join();
        assertEquals(75, next.appendResult().queueOffset(), "no queue offset handed out twice");
    }
}
