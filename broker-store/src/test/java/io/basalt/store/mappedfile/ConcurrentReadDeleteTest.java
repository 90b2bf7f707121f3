package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer rolls through files while readers select and check records and a cleaner deletes old
 * files under them: every selected record reads back intact, nothing is unmapped under a reader.
 */
class ConcurrentReadDeleteTest extends LeakCheck {
    static final int FILE_SIZE = 1 << 20;
    static final int RECORD = 64;
    static final int FILES = 12;

    @TempDir
    Path dir;

    @Test
    void readersAlwaysSeeIntactRecordsWhileOldFilesAreDeleted() throws Exception {
        MappedFileQueue queue = new MappedFileQueue(dir, FILE_SIZE, null);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong checked = new AtomicLong();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        try {
            workers.add(CompletableFuture.runAsync(() -> write(queue, writing)));
            for (int i = 0; i < 2; i++) {
                workers.add(CompletableFuture.runAsync(() -> read(queue, writing, checked)));
            }
            workers.add(CompletableFuture.runAsync(() -> {
                while (writing.get()) {
                    queue.deleteExpiredFilesByTime(0, 0, 0, true);
                }
            }));
            CompletableFuture.allOf(workers.toArray(CompletableFuture<?>[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            writing.set(false);
            queue.shutdown();
        }
        assertTrue(checked.get() > 0, "readers checked records");
        assertEquals(0, queue.files().size(), "shut down");
    }

    private static void write(MappedFileQueue queue, AtomicBoolean writing) {
        try {
            for (long offset = 0; offset < (long) FILES * FILE_SIZE; offset += RECORD) {
                MappedFile file = queue.lastFileOrCreate(0);
                file.append((writeOffset, target) -> {
                    for (int i = 0; i < RECORD; i += Long.BYTES) {
                        target.putLong(writeOffset);
                    }
                    return RECORD;
                });
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } finally {
            writing.set(false);
        }
    }

    private static void read(MappedFileQueue queue, AtomicBoolean writing, AtomicLong checked) {
        while (writing.get()) {
            long min = Math.max(queue.minOffset(), 0);
            long max = queue.maxOffset();
            if (max - min < RECORD) {
                continue;
            }
            long offset = min + ThreadLocalRandom.current().nextLong((max - min) / RECORD) * RECORD;
            MappedFile file = queue.findFileByOffset(offset, false);
            if (file == null) {
                continue;
            }
            SelectedBuffer selected = file.select((int) (offset - file.fileFromOffset()), RECORD);
            if (selected == null) {
                continue;
            }
            try {
                for (int i = 0; i < RECORD; i += Long.BYTES) {
                    long value = selected.buffer().getLong(i);
                    if (value != offset) {
                        throw new AssertionError("record at " + offset + " reads " + value);
                    }
                }
                checked.incrementAndGet();
            } finally {
                selected.release();
            }
        }
    }
}
