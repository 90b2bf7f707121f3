package io.basalt.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.queue.DispatchRequest;

/**
 * Index files after a crash are kept when intact (the restart re-indexes only from the last indexed
 * record); a damaged one, found by its header at open or by its content after a crash, is deleted
 * with every newer one and start-up goes on (the store rebuilds them from the CommitLog).
 */
class IndexCorruptionTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int SLOTS = 8;
    private static final int ITEMS = 16;

    @TempDir
    Path dir;
    private IndexService index;
    private long now = T0;
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneId.systemDefault();
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now++);
        }
    };

    @AfterEach
    void close() throws IOException {
        if (index != null) {
            index.close();
        }
    }

    private IndexService reopen() throws IOException {
        if (index != null) {
            index.close();
        }
        index = IndexService.open(dir.resolve("index"), SLOTS, ITEMS, clock);
        return index;
    }

    /** Indexes {@code n} records (one key each) at offsets 100, 200, ...: 15 keys fill a file. */
    private void indexRecords(int n) throws IOException {
        for (int i = 1; i <= n; i++) {
            index.buildIndex(new DispatchRequest("T", 0, i * 100L, 100, 0, T0 + i, i, "key-" + i, null, 0));
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("index"))) {
            return s.sorted().toList();
        }
    }

    private static void overwrite(Path file, long position, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    @Test
    void intactFilesSurviveACrashAndIndexingResumesAtTheLastIndexedRecord() throws IOException {
        reopen();
        indexRecords(40);   // three files, the last one not full
        reopen();
        assertEquals(0, index.deleteCorruptFilesEndingAtOrAfter(0), "nothing damaged: nothing deleted");
        assertEquals(3, index.fileCount());
        assertEquals(4000, index.resumeOffset());
        assertEquals(List.of(1700L), index.queryOffset("T", "key-17", 8, 0, Long.MAX_VALUE).physicalOffsets());
    }

    @Test
    void aLostSlotPageAfterACrashDeletesThatFileAndTheNewerOnes() throws IOException {
        reopen();
        indexRecords(40);
        List<Path> before = files();
        index.close();
        index = null;
        overwrite(before.get(1), IndexFile.HEADER_SIZE, new byte[SLOTS * IndexFile.SLOT_SIZE]);
        reopen();
        assertEquals(2, index.deleteCorruptFilesEndingAtOrAfter(0));
        assertEquals(List.of(before.get(0)), files());
        assertEquals(1500, index.resumeOffset(), "re-dispatch starts after the last good file");
    }

    @Test
    void aGarbageHeaderIsDeletedAtOpenWithTheNewerFilesAndOpenGoesOn() throws IOException {
        reopen();
        indexRecords(40);
        List<Path> before = files();
        index.close();
        index = null;
        byte[] garbage = new byte[IndexFile.HEADER_SIZE];
        new java.util.Random(7).nextBytes(garbage);
        overwrite(before.get(1), 0, garbage);
        reopen();
        assertEquals(1, index.fileCount());
        assertEquals(List.of(before.get(0)), files());
        assertEquals(1500, index.resumeOffset());
    }
}
