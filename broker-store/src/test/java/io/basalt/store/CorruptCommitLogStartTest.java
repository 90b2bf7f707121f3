package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
 * A byte flipped in a flushed CommitLog record: the store refuses to load (naming file and offset)
 * instead of cutting the acknowledged records after it; with recoverySkipCorruptRecords it skips the
 * record, its consume queue does not point at it, and every other message stays readable once.
 */
class CorruptCommitLogStartTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int MESSAGES = 300;

    @TempDir
    Path root;
    private final StoreTestSupport.SettableClock clock = StoreTestSupport.noonClock();
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);
    private MessageStore store;

    @AfterEach
    void shutdown() {
        StoreTestSupport.shutdownAndCheckMappings(store);
    }

    private MessageStore open(boolean skip) throws IOException {
        StoreConfig config = StoreTestSupport.config(root, FlushDiskType.ASYNC_FLUSH).toBuilder()
            .recoverySkipCorruptRecords(skip).build();
        store = MessageStore.open(config, StoreTestSupport.environment(clock, diskUsage));
        return store;
    }

    private List<PutMessageResult> fill() throws IOException {
        open(false);
        store.load();
        store.start();
        List<PutMessageResult> results = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            PutMessageResult r = store.asyncPutMessage(message("T", 0, null, "key-" + i, "body-" + i)).join();
            assertEquals(PutMessageStatus.PUT_OK, r.status());
            results.add(r);
        }
        long end = store.getMaxPhyOffset();
        await().atMost(WAIT).until(() -> store.getReputFromOffset() == end);
        store.shutdown();
        store = null;
        return results;
    }

    /** Flips the first byte of {@code text} inside the record at {@code offset}. */
    private void flip(long offset, int length, String text) throws IOException {
        long fileFrom = offset - offset % StoreTestSupport.COMMIT_LOG_FILE_SIZE;
        Path file = root.resolve("commitlog").resolve(StoreFiles.fileName(fileFrom));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer record = ByteBuffer.allocate(length);
            ch.read(record, offset - fileFrom);
            String s = new String(record.array(), StandardCharsets.ISO_8859_1);
            int at = s.indexOf(text);
            assertTrue(at > 0, text + " is in the record");
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (record.get(at) ^ 0x20)}), offset - fileFrom + at);
        }
    }

    private List<String> pullAll() {
        List<String> bodies = new ArrayList<>();
        long offset = store.getMinOffsetInQueue("T", 0);
        while (true) {
            try (GetMessageResult r = store.getMessage("g", "T", 0, offset, 32, null)) {
                if (r.status() != GetMessageStatus.FOUND) {
                    return bodies;
                }
                r.messages().forEach(b -> bodies.add(new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body())));
                offset = r.nextBeginOffset();
            }
        }
    }

    @Test
    void aFlippedByteInAFlushedRecordStopsTheLoadAndTheSkipFlagKeepsEveryOtherMessage() throws IOException {
        List<PutMessageResult> results = fill();
        int victim = MESSAGES - 20;   // one of the newest records, flushed at the clean stop
        long bad = results.get(victim).appendResult().physicalOffset();
        flip(bad, results.get(victim).appendResult().wroteBytes(), "body-" + victim);

        open(false);
        CorruptCommitLogException e = assertThrows(CorruptCommitLogException.class, store::load);
        assertEquals(bad, e.offset());
        assertTrue(e.getMessage().contains(StoreFiles.fileName(bad - bad % StoreTestSupport.COMMIT_LOG_FILE_SIZE)),
            e.getMessage());
        store.shutdown();
        store = null;

        open(true);
        store.load();
        store.start();
        List<String> bodies = pullAll();
        assertEquals(MESSAGES - 1, bodies.size(), "every message but the corrupt one is readable");
        assertFalse(bodies.stream().anyMatch(b -> !b.startsWith("body-")), "no corrupt body is served");
        for (int i = 0; i < MESSAGES; i++) {
            assertEquals(i == victim ? 0 : 1, java.util.Collections.frequency(bodies, "body-" + i), "body-" + i);
        }
        PutMessageResult next = store.asyncPutMessage(message("T", 0, null, "key-new", "new")).join();
        assertEquals(PutMessageStatus.PUT_OK, next.status());
        await().atMost(WAIT).until(() -> pullAll().contains("new"));
    }
}
