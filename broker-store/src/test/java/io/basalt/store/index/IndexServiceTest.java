package io.basalt.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Stream;

import io.basalt.store.StoreConfig;
import io.basalt.store.mappedfile.FileBlocks;
import io.basalt.store.queue.DispatchRequest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexServiceTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;
    private IndexService index;
    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(T0), ZoneId.systemDefault());

    @AfterEach
    void close() throws IOException {
        if (index != null) {
            index.close();
        }
    }

    private IndexService open(int slots, int items) throws IOException {
        index = IndexService.open(dir.resolve("index"), slots, items, clock);
        return index;
    }

    private static DispatchRequest msg(String topic, long offset, long storeTime, String keys, String uniq) {
        return new DispatchRequest(topic, 0, offset, 100, 0, storeTime, offset / 100, keys, uniq, 0);
    }

    private List<Long> query(String topic, String key) {
        return index.queryOffset(topic, key, 64, 0, Long.MAX_VALUE).physicalOffsets();
    }

    private List<String> fileNames() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("index"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void keysAndUniqKeyAreFoundNewestFirst() throws IOException {
        open(100, 1000);
        index.buildIndex(msg("T", 0, T0, "a b", "U0"));
        index.buildIndex(msg("T", 100, T0 + 10, "b  c", "U1"));
        index.buildIndex(msg("T", 200, T0 + 20, "a", null));
        index.buildIndex(msg("Other", 300, T0 + 30, "a", null));

        assertEquals(List.of(200L, 0L), query("T", "a"));
        assertEquals(List.of(100L, 0L), query("T", "b"));
        assertEquals(List.of(100L), query("T", "c"));
        assertEquals(List.of(0L), query("T", "U0"));
        assertEquals(List.of(300L), query("Other", "a"));
        assertEquals(List.of(), query("T", "missing"));
        assertEquals(List.of(200L), index.queryOffset("T", "a", 1, 0, Long.MAX_VALUE).physicalOffsets());
    }

    @Test
    void collidingKeysShareASlotChainAndStaySeparate() throws IOException {
        open(1, 1000); // one slot: every key collides
        for (int i = 0; i < 50; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i, "k" + (i % 5), null));
        }
        assertEquals(List.of(4900L, 4400L, 3900L, 3400L, 2900L, 2400L, 1900L, 1400L, 900L, 400L), query("T", "k4"));
        assertEquals(1, index.files().get(0).hashSlotCount());
        // "Aa" and "BB" have the same String hash: the index returns both, the caller compares keys
        index.buildIndex(msg("T", 5000, T0 + 60, "Aa", null));
        index.buildIndex(msg("T", 5100, T0 + 61, "BB", null));
        assertEquals("T#Aa".hashCode(), "T#BB".hashCode());
        assertEquals(List.of(5100L, 5000L), query("T", "Aa"));
    }

    @Test
    void timeRangeSelectsItemsAtSecondGranularity() throws IOException {
        open(100, 1000);
        for (int i = 0; i < 10; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i * 10_000L, "k", null)); // one every 10 s
        }
        assertEquals(List.of(500L, 400L, 300L), index.queryOffset("T", "k", 64, T0 + 30_000, T0 + 50_000).physicalOffsets());
        assertEquals(List.of(900L), index.queryOffset("T", "k", 64, T0 + 85_000, T0 + 200_000).physicalOffsets());
        assertEquals(List.of(), index.queryOffset("T", "k", 64, T0 + 200_000, T0 + 300_000).physicalOffsets());
    }

    @Test
    void aFullFileRollsOverAndQueriesSpanFiles() throws IOException {
        open(4, 5); // 4 usable items per file
        for (int i = 0; i < 10; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i * 1000L, "k", "u" + i));
        }
        // 20 keys, 4 per file
        assertEquals(5, index.fileCount());
        List<String> names = fileNames();
        assertEquals(5, names.size());
        String first = LocalDateTime.ofInstant(Instant.ofEpochMilli(T0), ZoneId.systemDefault())
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS"));
        assertEquals(first, names.get(0));
        assertEquals(List.of(900L, 800L, 700L, 600L, 500L, 400L, 300L, 200L, 100L, 0L), query("T", "k"));
        assertEquals(List.of(700L), query("T", "u7"));
        assertEquals(List.of(300L, 200L), index.queryOffset("T", "k", 64, T0 + 2000, T0 + 3000).physicalOffsets());
        assertEquals(900L, index.queryOffset("T", "k", 1, 0, Long.MAX_VALUE).indexLastUpdatePhyOffset());
    }

    @Test
    void onDiskLayoutIsRocketMqs() throws IOException {
        open(8, 16);
        index.buildIndex(msg("T", 4096, T0, null, "U"));
        index.buildIndex(msg("T", 8192, T0 + 5_500, "x", null));
        index.flush();
        Path file = dir.resolve("index").resolve(fileNames().get(0));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        assertEquals(40 + 8 * 4 + 16 * 20, b.capacity());
        assertEquals(T0, b.getLong(0));
        assertEquals(T0 + 5_500, b.getLong(8));
        assertEquals(4096, b.getLong(16));
        assertEquals(8192, b.getLong(24));
        assertEquals(3, b.getInt(36)); // indexCount starts at 1
        int hashU = Math.abs("T#U".hashCode());
        assertEquals(1, b.getInt(40 + (hashU % 8) * 4));
        int item1 = 40 + 8 * 4 + 20;
        assertEquals(hashU, b.getInt(item1));
        assertEquals(4096, b.getLong(item1 + 4));
        assertEquals(0, b.getInt(item1 + 12));
        assertEquals(0, b.getInt(item1 + 16));
        int item2 = item1 + 20;
        assertEquals(Math.abs("T#x".hashCode()), b.getInt(item2));
        assertEquals(5, b.getInt(item2 + 12)); // seconds since beginTimestamp
    }

    @Test
    void reopenedFilesAnswerAndRebuildIsIdempotent() throws IOException {
        open(16, 64);
        for (int i = 0; i < 5; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i, "k", null));
        }
        index.close();
        open(16, 64);
        assertEquals(400, index.resumeOffset());
        // re-dispatch from the resume offset: the record there is indexed again, queries fold it
        for (int i = 4; i < 6; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i, "k", null));
        }
        assertEquals(List.of(500L, 400L, 300L, 200L, 100L, 0L), query("T", "k"));
        index.buildIndex(msg("T", 200, T0 + 2, "k", null)); // below the end: skipped
        assertEquals(6, query("T", "k").size());
    }

    @Test
    void rollbackRecordsAreNotIndexed() throws IOException {
        open(16, 64);
        index.buildIndex(new DispatchRequest("T", 0, 0, 100, 0, T0, 0, "k", null, 0x3 << 2));
        assertEquals(List.of(), query("T", "k"));
        assertEquals(0, index.fileCount());
    }

    @Test
    void truncationAndRetentionDropWholeFiles() throws IOException {
        open(4, 3); // 2 keys per file
        for (int i = 0; i < 6; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i, "k", null));
        }
        assertEquals(3, index.fileCount());
        assertEquals(1, index.truncateByMaxPhysicOffset(450)); // file with 400, 500
        assertEquals(300, index.resumeOffset());
        assertEquals(1, index.deleteFilesBelow(250));           // file with 0, 100
        assertEquals(0, index.deleteFilesBelow(10_000));        // never the newest
        assertEquals(List.of(300L, 200L), query("T", "k"));
        assertEquals(1, fileNames().size());
    }

    @Test
    void afterACrashFilesEndingAtOrAfterTheCheckpointGo() throws IOException {
        open(4, 3); // 2 keys per file
        for (int i = 0; i < 5; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i * 1000L, "k", null));
        }
        assertEquals(3, index.fileCount());
        assertEquals(T0 + 3000, index.lastFullFileEndTimestamp());
        assertEquals(0, index.deleteFilesEndingAtOrAfter(T0 + 5000));
        // the file ending exactly at the checkpoint's time goes too: a millisecond tie is ambiguous
        assertEquals(2, index.deleteFilesEndingAtOrAfter(T0 + 3000));
        assertEquals(100, index.resumeOffset());
        assertEquals(1, index.deleteFilesEndingAtOrAfter(0));
        assertEquals(-1, index.resumeOffset());
        assertEquals(0, index.lastFullFileEndTimestamp());
    }

    @Test
    void loadRefusesAFileOfTheWrongSize() throws IOException {
        Files.createDirectories(dir.resolve("index"));
        Files.write(dir.resolve("index").resolve("20240101000000000"), new byte[100]);
        IOException e = assertThrows(IOException.class, () -> open(8, 16));
        assertTrue(e.getMessage().contains("20240101000000000"), e.getMessage());
    }

    @Test
    void onlyTheFileTakingKeysStaysMappedAndCloseUnmapsIt() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(maps), "needs /proc/self/maps");
        open(4, 3); // 2 keys per file
        for (int i = 0; i < 5; i++) {
            index.buildIndex(msg("T", i * 100L, T0 + i, "k", null));
        }
        index.flush();
        List<String> names = fileNames();
        assertEquals(3, names.size());
        String mapped = Files.readString(maps);
        assertTrue(!mapped.contains(names.get(0)) && !mapped.contains(names.get(1)), "full files are unmapped after flush");
        assertTrue(mapped.contains(names.get(2)), "the file taking keys is mapped");
        assertEquals(List.of(400L, 300L, 200L, 100L, 0L), query("T", "k"));
        index.close();
        index = null;
        assertTrue(!Files.readString(maps).contains(dir.resolve("index").toString()), "close unmaps everything");
    }

    @Test
    void defaultsAreRocketMqs() {
        StoreConfig defaults = StoreConfig.builder().build();
        assertEquals(420_000_040L, IndexFile.fileSize(defaults.maxHashSlotNum(), defaults.maxIndexNum()));
        assertEquals(0, IndexFile.keyHash(minValueHashString()));
    }

    /** A string whose hashCode is Integer.MIN_VALUE ("polygenelubricants" is the well-known one). */
    private static String minValueHashString() {
        assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
        return "polygenelubricants";
    }
    @Test
    void anIndexFileHasAllItsBlocksBeforeItIsMappedSoAFullDiskCannotSigbusAKeyWrite() throws Exception {
        open(5_000, 40_000);
        index.buildIndex(msg("T", 0, T0, "a", "U0"));
        Path file = dir.resolve("index").resolve(fileNames().get(0));
        long size = Files.size(file);
        assertTrue(size > 800_000, "a file big enough to tell sparse from allocated");
        assertTrue(FileBlocks.allocatedBytes(file) >= size, "the index file is sparse: a mapped write can SIGBUS");
    }
}
