package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A crash restart keeps the index files it finds intact (the same files, not deleted and rebuilt from
 * the CommitLog's start) and still finds every key.
 */
class IndexResumeAfterCrashTest {
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

    /** Item 0 of an index file is never used: a mark there survives only if the file is kept. */
    private static final long ITEM_ZERO = 40 + 64 * 4;

    private List<Path> indexFiles() throws IOException {
        try (Stream<Path> s = Files.list(root.resolve("index"))) {
            return s.sorted().toList();
        }
    }

    private static byte mark(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, ITEM_ZERO);
            return b.get(0);
        }
    }

    @Test
    void aCrashRestartKeepsTheIntactIndexFilesAndFindsEveryKey() throws IOException {
        start();
        for (int i = 0; i < 300; i++) {
            assertEquals(PutMessageStatus.PUT_OK,
                store.asyncPutMessage(message("T", 0, null, "key-" + i, "m" + i)).join().status());
        }
        long end = store.getMaxPhyOffset();
        await().atMost(Duration.ofSeconds(20)).until(() -> store.getReputFromOffset() == end);
        store.shutdown();
        store = null;
        List<Path> before = indexFiles();
        for (Path p : before) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {0x7f}), ITEM_ZERO);
            }
        }
        Files.createFile(root.resolve("abort"));   // the broker had crashed

        start();
        assertEquals(before, indexFiles());
        for (Path p : before) {
            assertEquals(0x7f, mark(p), p + " was kept, not deleted and written again");
        }
        for (int i = 0; i < 300; i++) {
            try (QueryMessageResult q = store.queryMessage("T", "key-" + i, 10, 0, Long.MAX_VALUE)) {
                assertEquals(1, q.messages().size(), "key-" + i);
            }
        }
    }
}
