package io.basalt.store.queue;

import io.basalt.store.BoundaryType;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import io.basalt.store.mappedfile.FileBlocks;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsumeQueueTest {
    private static final int ENTRIES_PER_FILE = 10;
    private static final int FILE_SIZE = ENTRIES_PER_FILE * ConsumeQueueEntry.SIZE;
    /** Every test record is 100 bytes at physicalOffset = 1000 + 100 * i, stored at time 10_000 + 10 * i. */
    private static final StoreTimestampLookup TIMES = (offset, size) -> 10_000 + (offset - 1000) / 100 * 10;

    @TempDir
    Path dir;
    private ConsumeQueue queue;

    @AfterEach
    void close() throws IOException {
        if (queue != null) {
            queue.close();
        }
    }

    private ConsumeQueue open() throws IOException {
        queue = ConsumeQueue.open(dir.resolve("TopicA").resolve("0"), "TopicA", 0, FILE_SIZE);
        return queue;
    }

    private static long physical(long i) {
        return 1000 + 100 * i;
    }

    private void fill(ConsumeQueue q, long from, long to) throws IOException {
        for (long i = from; i < to; i++) {
            assertEquals(ConsumeQueue.PutResult.APPENDED, q.put(physical(i), 100, i * 7, i));
        }
    }

    private List<String> fileNames() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("TopicA").resolve("0"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void entriesAcrossFileBoundariesAreFoundByLogicalOffset() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 25);

        assertEquals(0, q.minOffset());
        assertEquals(25, q.maxOffset());
        assertEquals(physical(24) + 100, q.maxPhysicalOffset());
        assertEquals(List.of("00000000000000000000", "00000000000000000200", "00000000000000000400"), fileNames());
        for (long i = 0; i < 25; i++) {
            assertEquals(new ConsumeQueueEntry(physical(i), 100, i * 7), q.entry(i));
        }
        assertNull(q.entry(25));
        assertNull(q.entry(-1));

        // a batch read stops at the end of the file holding its first entry
        ByteBuffer dst = ByteBuffer.allocate(32 * 20);
        assertEquals(2, q.read(8, 32, dst));
        assertEquals(physical(9), dst.getLong(20));
        dst.clear();
        assertEquals(5, q.read(20, 32, dst));
    }

    @Test
    void appendedEntriesBecomeVisibleOnCommitOrAtAFileBoundary() throws IOException {
        ConsumeQueue q = open();
        for (long i = 0; i < 3; i++) {
            assertEquals(ConsumeQueue.PutResult.APPENDED, q.append(physical(i), 100, 0, i));
        }
        assertEquals(0, q.maxOffset());
        assertNull(q.entry(0));
        assertEquals(3, q.writeOffset());
        assertEquals(ConsumeQueue.PutResult.DUPLICATE, q.append(physical(2), 100, 0, 2));
        q.commit();
        assertEquals(3, q.maxOffset());
        assertEquals(physical(2) + 100, q.maxPhysicalOffset());

        for (long i = 3; i < 15; i++) {
            q.append(physical(i), 100, 0, i);
        }
        assertEquals(10, q.maxOffset(), "entries of a full file are written before the next file's");
        q.commit();
        assertEquals(15, q.maxOffset());
        for (long i = 0; i < 15; i++) {
            assertEquals(physical(i), q.entry(i).physicalOffset());
        }
    }

    @Test
    void onDiskBytesAreRocketMqEntries() throws IOException {
        ConsumeQueue q = open();
        q.put(4096, 321, 0xABCDL, 0);
        q.flush();
        byte[] file = Files.readAllBytes(dir.resolve("TopicA/0/00000000000000000000"));
        assertEquals(FILE_SIZE, file.length);
        ByteBuffer b = ByteBuffer.wrap(file);
        assertEquals(4096, b.getLong(0));
        assertEquals(321, b.getInt(8));
        assertEquals(0xABCDL, b.getLong(12));
        assertEquals(0, b.getLong(20));
    }

    @Test
    void redispatchIsIdempotentAndGapsAreReported() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 5);
        assertEquals(ConsumeQueue.PutResult.DUPLICATE, q.put(physical(3), 100, 0, 3));
        assertEquals(ConsumeQueue.PutResult.DUPLICATE, q.put(physical(4), 100, 0, 4));
        assertEquals(ConsumeQueue.PutResult.GAP, q.put(physical(7), 100, 0, 7));
        assertEquals(5, q.maxOffset());

        q.fillGapTo(7);
        assertEquals(ConsumeQueue.PutResult.APPENDED, q.put(physical(7), 100, 0, 7));
        assertTrue(q.entry(5).isPlaceholder());
        assertEquals(physical(7), q.entry(7).physicalOffset());
    }

    @Test
    void aQueueStartingAboveZeroGetsPlaceholdersBeforeItsFirstEntry() throws IOException {
        ConsumeQueue q = open();
        assertEquals(ConsumeQueue.PutResult.APPENDED, q.put(physical(13), 100, 0, 13));
        assertEquals(13, q.minOffset());
        assertEquals(14, q.maxOffset());
        assertEquals(List.of("00000000000000000200"), fileNames());
        q.close();

        ConsumeQueue reopened = open();
        reopened.recover();
        assertEquals(13, reopened.minOffset());
        assertEquals(14, reopened.maxOffset());
        assertEquals(physical(13) + 100, reopened.maxPhysicalOffset());
    }

    @Test
    void offsetForTimestampSearchesStoreTimes() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 25); // times 10_000, 10_010, ..., 10_240

        assertEquals(0, q.offsetForTimestamp(1, BoundaryType.LOWER, TIMES));
        assertEquals(0, q.offsetForTimestamp(10_000, BoundaryType.LOWER, TIMES));
        assertEquals(13, q.offsetForTimestamp(10_125, BoundaryType.LOWER, TIMES));
        assertEquals(12, q.offsetForTimestamp(10_125, BoundaryType.UPPER, TIMES));
        assertEquals(12, q.offsetForTimestamp(10_120, BoundaryType.UPPER, TIMES));
        assertEquals(12, q.offsetForTimestamp(10_120, BoundaryType.LOWER, TIMES));
        assertEquals(25, q.offsetForTimestamp(99_999, BoundaryType.LOWER, TIMES));
        assertEquals(24, q.offsetForTimestamp(99_999, BoundaryType.UPPER, TIMES));
        assertEquals(0, q.offsetForTimestamp(1, BoundaryType.UPPER, TIMES));
    }

    @Test
    void recoverEndsTheQueueAtATruncatedTail() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 23);
        q.close();
        // the last three entries never reached the disk
        Path last = dir.resolve("TopicA/0/00000000000000000400");
        try (FileChannel ch = FileChannel.open(last, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(60), 0);
        }

        ConsumeQueue r = open();
        assertEquals(0, r.maxOffset() % ENTRIES_PER_FILE); // unknown until recovered
        r.recover();
        assertEquals(20, r.maxOffset());
        assertEquals(physical(19) + 100, r.maxPhysicalOffset());
        assertEquals(ConsumeQueue.PutResult.APPENDED, r.put(physical(20), 100, 0, 20));
    }

    @Test
    void recoverCutsAGarbageTail() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 16);
        q.close();
        Path second = dir.resolve("TopicA/0/00000000000000000200");
        ByteBuffer garbage = ByteBuffer.allocate(40);
        garbage.putLong(5).putInt(77).putLong(1).putLong(-9).putInt(3).putLong(2).flip(); // goes backwards, then negative
        try (FileChannel ch = FileChannel.open(second, StandardOpenOption.WRITE)) {
            ch.write(garbage, 6 * 20);
        }

        ConsumeQueue r = open();
        r.recover();
        assertEquals(16, r.maxOffset());
        assertEquals(physical(15) + 100, r.maxPhysicalOffset());
        // the cut zeroed the bytes after the last good entry
        byte[] bytes = Files.readAllBytes(second);
        assertArrayEquals(new byte[FILE_SIZE - 6 * 20], java.util.Arrays.copyOfRange(bytes, 6 * 20, FILE_SIZE));
    }

    @Test
    void truncateByCommitLogEndDropsEntriesBeyondIt() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 25);
        q.truncateByMaxPhysicOffset(physical(12) + 50); // record 12 is cut in the middle
        assertEquals(12, q.maxOffset());
        assertEquals(physical(11) + 100, q.maxPhysicalOffset());
        assertEquals(List.of("00000000000000000000", "00000000000000000200"), fileNames());
        fill(q, 12, 14);
        assertEquals(14, q.maxOffset());

        q.truncateByMaxPhysicOffset(physical(10));
        assertEquals(10, q.maxOffset());
        assertEquals(List.of("00000000000000000000"), fileNames());
    }

    @Test
    void filesWhollyBelowTheCommitLogMinOffsetAreDeleted() throws IOException {
        ConsumeQueue q = open();
        fill(q, 0, 25);

        assertEquals(0, q.deleteFilesBelow(physical(9))); // last entry of file 0 still in the log
        assertEquals(9, q.minOffset());                    // but the entries before it are gone
        assertEquals(1, q.deleteFilesBelow(physical(14)));
        assertEquals(14, q.minOffset());
        assertNull(q.entry(13));
        assertEquals(physical(14), q.entry(14).physicalOffset());
        // the last file is never deleted
        assertEquals(1, q.deleteFilesBelow(physical(100)));
        assertEquals(List.of("00000000000000000400"), fileNames());
        assertEquals(25, q.minOffset());
        assertEquals(25, q.maxOffset());
    }

    @Test
    void loadRefusesAFileOfTheWrongSize() throws IOException {
        Path qdir = Files.createDirectories(dir.resolve("TopicA/0"));
        Files.write(qdir.resolve("00000000000000000000"), new byte[FILE_SIZE + 1]);
        IOException e = assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains("00000000000000000000"), e.getMessage());
    }

    @Test
    void fileSizeIsRoundedUpToWholeEntries() {
        assertEquals(6_000_000, ConsumeQueueStore.fileSizeFor(300_000 * 20));
        assertEquals(40, ConsumeQueueStore.fileSizeFor(21));
    }
    @Test
    void recoveryWritesNothingWhenTheQueueEndsAtUnwrittenBytesAndTheNextEntryGoesThere() throws Exception {
        ConsumeQueue q = open();
        fill(q, 0, 13);
        q.close();
        queue = null;
        Path last = dir.resolve("TopicA").resolve("0").resolve(fileNames().get(1));
        FileTime old = FileTime.from(Instant.now().minus(Duration.ofHours(1)));
        Files.setLastModifiedTime(last, old);
        byte[] before = Files.readAllBytes(last);

        ConsumeQueue reopened = open();
        reopened.recover();
        assertEquals(13, reopened.maxOffset());
        assertEquals(old, Files.getLastModifiedTime(last), "recovery wrote into the file (zeroing its tail)");
        assertArrayEquals(before, Files.readAllBytes(last));

        fill(reopened, 13, 15);
        for (long i = 0; i < 15; i++) {
            assertEquals(new ConsumeQueueEntry(physical(i), 100, i * 7), reopened.entry(i));
        }
    }

    @Test
    void aQueueFileGetsItsBlocksInStepsAheadOfItsWriterAndStaysSparseBeyondThem() throws Exception {
        int size = 52_428 * ConsumeQueueEntry.SIZE;
        int step = ConsumeQueueFile.ALLOCATION_STEP;
        queue = ConsumeQueue.open(dir.resolve("Big").resolve("0"), "Big", 0, size);
        queue.put(physical(0), 100, 0, 0);
        Path file;
        try (Stream<Path> s = Files.list(dir.resolve("Big").resolve("0"))) {
            file = s.findFirst().orElseThrow();
        }
        assertEquals(size, Files.size(file), "RocketMQ's size check wants the whole length");
        long first = FileBlocks.allocatedBytes(file);
        // the first step at creation, so a full disk fails the queue's creation, not its first entry write
        assertTrue(first >= step, "blocks of the first step: " + first);
        assertTrue(first <= step + 64 * 1024, "sparse beyond it, as RocketMQ's files are: " + first);

        // the entries that cross into the next step get its blocks before they are written
        long entriesPerStep = step / ConsumeQueueEntry.SIZE;
        for (long i = 1; i < entriesPerStep + 10; i++) {
            queue.put(physical(i), 100, i * 7, i);
        }
        queue.commit();
        long second = FileBlocks.allocatedBytes(file);
        assertTrue(second >= 2L * step, "blocks of two steps: " + second);
        assertTrue(second <= 2L * step + 64 * 1024, "and not the whole file: " + second);
        assertEquals(new ConsumeQueueEntry(physical(entriesPerStep + 9), 100, (entriesPerStep + 9) * 7),
            queue.entry(entriesPerStep + 9));
    }
}
