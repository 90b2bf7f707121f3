package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files are destroyed while readers hold and read them: a held file stays mapped and readable
 * until its last reader lets go, then it is unmapped and removed from disk. Every record holds its
 * own global offset in each of its longs, so a reader sees at once whether a byte it read is wrong.
 * (The leak check after the test also fails on a mapping left behind, deleted or not.)
 */
class ConcurrentReadDeleteTest {
    static final int FILE_SIZE = 1 << 20;
    static final int RECORD = 64;
    static final int FILES = 16;
    /** Files the deleter leaves in place; older ones it destroys, each while a reader holds it. */
    static final int KEEP = 3;
    static final int READERS = 3;

    @TempDir
    Path dir;

    @Test
    void aHeldFileIsUnmappedAndRemovedOnlyWhenItsLastReaderReleasesIt() throws IOException {
        int mappingsBefore = MappedFile.liveMappings();
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        fill(file);
        SelectedBuffer first = file.select(0, RECORD);
        SelectedBuffer second = file.select(FILE_SIZE - RECORD, RECORD);

        assertFalse(file.destroy(0), "readers hold it, so it is not gone yet");
        Path renamed = dir.resolve(StoreFiles.fileName(0) + StoreFiles.DELETE_SUFFIX);
        assertFalse(Files.exists(dir.resolve(StoreFiles.fileName(0))), "renamed at once: no reader can open it by name");
        assertTrue(Files.exists(renamed), "its bytes stay on disk while held");
        assertNull(file.select(0, RECORD), "no new reader gets in");
        assertEquals(mappingsBefore + 1, MappedFile.liveMappings(), "still mapped");
        assertRecord(first, 0);

        first.release();
        assertEquals(mappingsBefore + 1, MappedFile.liveMappings(), "one reader still holds it");
        assertRecord(second, FILE_SIZE - RECORD);
        second.release();

        assertEquals(mappingsBefore, MappedFile.liveMappings(), "unmapped by the last release");
        assertFalse(Files.exists(renamed), "and deleted");
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void readersSeeIntactBytesWhileFilesAreDestroyedUnderThem() throws Exception {
        int mappingsBefore = MappedFile.liveMappings();
        AtomicReferenceArray<MappedFile> published = new AtomicReferenceArray<>(FILES);
        AtomicInteger publishedCount = new AtomicInteger();
        AtomicInteger oldestLive = new AtomicInteger();
        AtomicBoolean deleting = new AtomicBoolean(true);
        AtomicLong checked = new AtomicLong();
        AtomicLong readsOfDestroyedFiles = new AtomicLong();
        Queue<Path> destroyed = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        workers.add(CompletableFuture.runAsync(() -> write(published, publishedCount)));
        for (int i = 0; i < READERS; i++) {
            workers.add(CompletableFuture.runAsync(
                () -> read(published, publishedCount, oldestLive, deleting, checked, readsOfDestroyedFiles)));
        }
        workers.add(CompletableFuture.runAsync(
            () -> destroyOldFiles(published, publishedCount, oldestLive, deleting, destroyed)));
        try {
            CompletableFuture.allOf(workers.toArray(CompletableFuture<?>[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            deleting.set(false);
            for (int i = 0; i < FILES; i++) {
                MappedFile left = published.getAndSet(i, null);
                if (left != null) {
                    left.close();
                }
            }
        }

        assertTrue(checked.get() > 0, "readers checked records");
        assertEquals(FILES - KEEP, destroyed.size(), "every file but the last " + KEEP + " was destroyed");
        assertTrue(readsOfDestroyedFiles.get() >= FILES - KEEP,
            "each destroyed file was read intact after its destroy, by the reader holding it: " + readsOfDestroyedFiles);
        for (Path p : destroyed) {
            assertFalse(Files.exists(p), p + " is gone");
            assertFalse(Files.exists(p.resolveSibling(p.getFileName() + StoreFiles.DELETE_SUFFIX)), p + ".delete is gone");
        }
        try (var left = Files.list(dir)) {
            assertEquals(KEEP, left.count(), "only the kept files are on disk");
        }
        assertEquals(mappingsBefore, MappedFile.liveMappings(), "no mapping left behind");
    }

    private void write(AtomicReferenceArray<MappedFile> published, AtomicInteger publishedCount) {
        try {
            for (int i = 0; i < FILES; i++) {
                MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName((long) i * FILE_SIZE)), FILE_SIZE, null);
                published.set(i, file);
                publishedCount.set(i + 1);
                fill(file);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Destroys each file older than the last {@link #KEEP} once a reader holds it, so the destroy happens under a reader. */
    private static void destroyOldFiles(AtomicReferenceArray<MappedFile> published, AtomicInteger publishedCount,
                                        AtomicInteger oldestLive, AtomicBoolean deleting, Queue<Path> destroyed) {
        try {
            destroyOldFiles(published, publishedCount, oldestLive, destroyed);
        } finally {
            deleting.set(false);
        }
    }

    private static void destroyOldFiles(AtomicReferenceArray<MappedFile> published, AtomicInteger publishedCount,
                                        AtomicInteger oldestLive, Queue<Path> destroyed) {
        for (int next = 0; next < FILES - KEEP; next++) {
            while (publishedCount.get() <= next + KEEP || !published.get(next).isFull()) {
                Thread.onSpinWait();
            }
            MappedFile file = published.get(next);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!file.isHeld()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no reader held " + file + " within 10 s");
                }
                Thread.onSpinWait();
            }
            file.destroy(0);
            published.set(next, null);
            oldestLive.set(next + 1);
            destroyed.add(file.path());
        }
    }

    private static void read(AtomicReferenceArray<MappedFile> published, AtomicInteger publishedCount,
                             AtomicInteger oldestLive, AtomicBoolean deleting, AtomicLong checked,
                             AtomicLong readsOfDestroyedFiles) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (deleting.get()) {
            int count = publishedCount.get();
            int oldest = Math.min(oldestLive.get(), count - 1);
            if (count == 0) {
                continue;
            }
            // Among the files not yet destroyed, the oldest of which the deleter is waiting to destroy.
            int index = random.nextInt(oldest, count);
            MappedFile file = published.get(index);
            if (file == null || file.readPosition() < RECORD) {
                continue;
            }
            int position = random.nextInt(file.readPosition() / RECORD) * RECORD;
            SelectedBuffer selected = file.select(position, RECORD);
            if (selected == null) {
                continue;   // destroyed before we got in: refused, never a stale mapping
            }
            try {
                if (index == oldestLive.get()) {
                    // The file the deleter destroys next, as soon as it sees a holder: read it after that.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    while (file.isAvailable() && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                }
                boolean destroyedUnderUs = !file.isAvailable();
                assertRecord(selected, file.fileFromOffset() + position);
                checked.incrementAndGet();
                if (destroyedUnderUs) {
                    readsOfDestroyedFiles.incrementAndGet();
                }
            } finally {
                selected.release();
            }
        }
    }

    private static void fill(MappedFile file) {
        while (file.append((writeOffset, target) -> {
            for (int i = 0; i < RECORD; i += Long.BYTES) {
                target.putLong(writeOffset);
            }
            return RECORD;
        }) > 0) {
            // until the file is full
        }
    }

    private static void assertRecord(SelectedBuffer selected, long offset) {
        for (int i = 0; i < RECORD; i += Long.BYTES) {
            long value = selected.buffer().getLong(i);
            if (value != offset) {
                throw new AssertionError("record at " + offset + " reads " + value);
            }
        }
    }
}
