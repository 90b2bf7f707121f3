package io.basalt.store.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store-wide bound on open ConsumeQueue files: lazy opening, eviction, pinning, flush on eviction. */
class OpenFileBudgetTest {
    private static final int ENTRIES_PER_FILE = 10;
    private static final int FILE_SIZE = ENTRIES_PER_FILE * ConsumeQueueEntry.SIZE;

    @TempDir
    Path dir;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private ConsumeQueueStore store(int maxOpen) throws IOException {
        ConsumeQueueStore s = ConsumeQueueStore.open(dir.resolve("consumequeue"), FILE_SIZE, maxOpen);
        toClose.add(s::close);
        return s;
    }

    /** Entry i of queue q points at a distinct, checkable CommitLog position. */
    private static long physical(int q, long i) {
        return 1_000_000L * q + 100 * i;
    }

    private static void fill(ConsumeQueue queue, int q, long from, long to) throws IOException {
        for (long i = from; i < to; i++) {
            assertEquals(ConsumeQueue.PutResult.APPENDED, queue.append(physical(q, i), 100, i, i));
        }
        queue.commit();
    }

    private static void assertEntry(ConsumeQueue queue, int q, long i) {
        ConsumeQueueEntry e = queue.entry(i);
        assertTrue(e != null, () -> "entry " + i + " of queue " + q + " missing");
        assertEquals(physical(q, i), e.physicalOffset(), "queue " + q + " entry " + i);
        assertEquals(100, e.size());
    }

    /** File descriptors of this process open on a file under the consume-queue directory. */
    private long openConsumeQueueFds() throws IOException {
        Path cq = dir.resolve("consumequeue").toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(cq);
                } catch (IOException e) {
                    return false; // closed since the listing
                }
            }).count();
        }
    }

    @Test
    void boundIsNeverExceededUnderConcurrentReadersAndTheWriter() throws Exception {
        int bound = 8;
        int queues = 40;
        ConsumeQueueStore store = store(bound);
        List<ConsumeQueue> qs = new ArrayList<>();
        for (int q = 0; q < queues; q++) {
            ConsumeQueue queue = store.findOrCreate("T" + q, 0);
            fill(queue, q, 0, 5);
            qs.add(queue);
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger fdsOverBound = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                readers.add(pool.submit(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    while (!done.get()) {
                        int q = rnd.nextInt(queues);
                        ConsumeQueue queue = qs.get(q);
                        long max = queue.maxOffset();
                        assertEntry(queue, q, rnd.nextLong(max));
                        if (store.openFileCount() > bound) {
                            fdsOverBound.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Future<?> writer = pool.submit(() -> {
                for (long i = 5; i < 5 + 6 * ENTRIES_PER_FILE; i++) {
                    for (int q = 0; q < queues; q++) {
                        fill(qs.get(q), q, i, i + 1);
                    }
                    store.flush();
                    if (openConsumeQueueFds() > bound) {
                        fdsOverBound.incrementAndGet();
                    }
                }
                return null;
            });
            writer.get(60, TimeUnit.SECONDS);
            done.set(true);
            for (Future<?> r : readers) {
                r.get(60, TimeUnit.SECONDS);
            }
        } finally {
            done.set(true);
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        assertEquals(0, fdsOverBound.get());
        assertTrue(store.openFileHighWater() <= bound, "high water " + store.openFileHighWater());
        assertTrue(store.openFileEvictions() > 0, "40 queues through 8 channels must evict");
        for (int q = 0; q < queues; q++) {
            for (long i = 0; i < 5 + 6 * ENTRIES_PER_FILE; i++) {
                assertEntry(qs.get(q), q, i);
            }
        }
        assertTrue(openConsumeQueueFds() <= bound);
    }

    @Test
    void aStoreWithMoreFilesThanTheBoundLoadsWithoutOpeningThemAndReadsEveryQueue() throws Exception {
        int queues = 30;
        long entries = 3 * ENTRIES_PER_FILE; // three files a queue: 90 files
        ConsumeQueueStore first = ConsumeQueueStore.open(dir.resolve("consumequeue"), FILE_SIZE);
        for (int q = 0; q < queues; q++) {
            fill(first.findOrCreate("T" + q, 0), q, 0, entries);
        }
        first.close();

        int bound = 16;
        ConsumeQueueStore store = store(bound);
        assertEquals(0, store.openFileCount(), "loading opens no file");
        assertEquals(0, openConsumeQueueFds());
        store.recover();
        assertTrue(openConsumeQueueFds() <= bound);
        for (int q = 0; q < queues; q++) {
            ConsumeQueue queue = store.find("T" + q, 0);
            assertEquals(entries, queue.maxOffset());
            for (long i = 0; i < entries; i++) {
                assertEntry(queue, q, i);
            }
            assertTrue(openConsumeQueueFds() <= bound);
        }
        assertTrue(store.openFileHighWater() <= bound);
        store.close();
        assertEquals(0, openConsumeQueueFds(), "close closes every cached channel");
    }

    @Test
    void anEvictedFileReopensAndReadsTheSameBytes() throws Exception {
        OpenFileBudget budget = new OpenFileBudget(1);
        Files.createDirectories(dir);
        ConsumeQueueFile a = ConsumeQueueFile.open(dir, 0, FILE_SIZE, budget);
        toClose.add(a::close);
        byte[] bytes = new byte[FILE_SIZE];
        ThreadLocalRandom.current().nextBytes(bytes);
        a.write(0, ByteBuffer.wrap(bytes));
        ConsumeQueueFile b = ConsumeQueueFile.open(dir, FILE_SIZE, FILE_SIZE, budget);
        toClose.add(b::close);
        assertFalse(a.hasChannel(), "creating b evicted a");
        assertEquals(1, budget.openCount());

        ByteBuffer back = ByteBuffer.allocate(FILE_SIZE);
        assertEquals(FILE_SIZE, a.read(0, back));
        assertEquals(ByteBuffer.wrap(bytes), back.flip());
        assertFalse(b.hasChannel(), "reading a evicted b");
        assertEquals(2, budget.evictions());
    }

    @Test
    void aDirtyChannelIsForcedBeforeEvictionAndACleanOneIsNot() throws Exception {
        OpenFileBudget budget = new OpenFileBudget(1);
        Files.createDirectories(dir);
        ConsumeQueueFile a = ConsumeQueueFile.open(dir, 0, FILE_SIZE, budget);
        toClose.add(a::close);
        a.write(0, ByteBuffer.wrap(new byte[] {1, 2, 3}));
        ConsumeQueueFile b = ConsumeQueueFile.open(dir, FILE_SIZE, FILE_SIZE, budget); // evicts dirty a
        toClose.add(b::close);
        assertEquals(1, budget.evictionFlushes());
        a.flush(); // nothing left to force, and no reopening for it
        assertFalse(a.hasChannel());
        a.read(0, ByteBuffer.allocate(3)); // evicts b, clean since its creation forced it
        assertEquals(1, budget.evictionFlushes());
        assertEquals(2, budget.evictions());
    }

    @Test
    void readersRacingEvictionNeverSeeAFileAsDeleted() throws Exception {
        int files = 6;
        OpenFileBudget budget = new OpenFileBudget(2);
        Files.createDirectories(dir);
        List<ConsumeQueueFile> all = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            ConsumeQueueFile file = ConsumeQueueFile.open(dir, (long) f * FILE_SIZE, FILE_SIZE, budget);
            toClose.add(file::close);
            byte[] content = new byte[FILE_SIZE];
            java.util.Arrays.fill(content, (byte) (f + 1));
            file.write(0, ByteBuffer.wrap(content));
            all.add(file);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                readers.add(pool.submit(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    ByteBuffer buf = ByteBuffer.allocate(ConsumeQueueEntry.SIZE);
                    for (int n = 0; n < 5_000; n++) {
                        int f = rnd.nextInt(files);
                        buf.clear();
                        int read = all.get(f).read(rnd.nextInt(ENTRIES_PER_FILE) * ConsumeQueueEntry.SIZE, buf);
                        assertEquals(ConsumeQueueEntry.SIZE, read, "file " + f + " seen as deleted");
                        assertEquals(f + 1, buf.get(0));
                        assertTrue(budget.openCount() <= 2);
                    }
                    return null;
                }));
            }
            for (Future<?> r : readers) {
                r.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        assertTrue(budget.evictions() > 0);
        assertTrue(budget.highWater() <= 2);
    }

    @Test
    void aDeletedFileIsGoneForReadersWhetherOpenOrEvicted() throws Exception {
        OpenFileBudget budget = new OpenFileBudget(1);
        Files.createDirectories(dir);
        ConsumeQueueFile open = ConsumeQueueFile.open(dir, 0, FILE_SIZE, budget);
        ConsumeQueueFile evicted = ConsumeQueueFile.open(dir, FILE_SIZE, FILE_SIZE, budget);
        ConsumeQueueFile hot = ConsumeQueueFile.open(dir, 2L * FILE_SIZE, FILE_SIZE, budget);
        toClose.add(hot::close);
        assertTrue(open.read(0, ByteBuffer.allocate(20)) == 20);
        assertFalse(evicted.hasChannel());
        open.delete();
        evicted.delete();
        assertEquals(-1, open.read(0, ByteBuffer.allocate(20)));
        assertEquals(-1, evicted.read(0, ByteBuffer.allocate(20)), "a deleted file is never reopened");
        assertEquals(0, budget.openCount());
        assertFalse(Files.exists(open.path()));
        assertFalse(Files.exists(evicted.path()));
        assertTrue(hot.read(0, ByteBuffer.allocate(20)) == 20);
    }

    @Test
    void retentionStillHidesDeletedFilesFromAQueueThatEvictedThem() throws Exception {
        ConsumeQueueStore store = store(16);
        ConsumeQueue queue = store.findOrCreate("T", 0);
        fill(queue, 0, 0, 3 * ENTRIES_PER_FILE);
        for (int q = 1; q <= 20; q++) { // evict the queue's files
            fill(store.findOrCreate("T" + q, 0), q, 0, 1);
        }
        assertEquals(2, queue.deleteFilesBelow(physical(0, 2 * ENTRIES_PER_FILE)));
        assertEquals(2L * ENTRIES_PER_FILE, queue.minOffset());
        assertEquals(0, queue.read(0, 1, ByteBuffer.allocate(20)));
        assertEntry(queue, 0, 2L * ENTRIES_PER_FILE);
    }
}
