package io.basalt.store.mappedfile;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.basalt.common.test.ProcessResources;
import io.basalt.store.FlushDiskType;
import io.basalt.store.SelectedBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Warm-up faults in and locks only the pages the writer is about to touch, and gives back the ones it
 * has passed: a file three windows long is never all resident in the broker process. Pages a reader
 * faulted in through the mapping leave the process again too, and stay readable with the same bytes.
 */
class WarmWindowTest {
    private static final int MIB = 1 << 20;
    private static final int WINDOW = MappedFile.WARM_WINDOW;
    private static final int FILE_SIZE = 3 * WINDOW;
    /** Rss of a mapping counts whole folios at the edges of a range. */
    private static final long SLACK_KIB = 4 * 1024;

    @TempDir
    Path dir;

    private AllocateMappedFileService service;
    private MappedFileQueue queue;

    @AfterEach
    void stop() {
        if (queue != null) {
            queue.shutdown();
        }
        if (service != null) {
            service.shutdown();
        }
    }

    @Test
    void theWarmWindowMovesWithTheWriterAndWhatItPassedIsGivenBack() throws IOException {
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, true, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        MappedFile file = queue.lastFileOrCreate(0);

        assertEquals(WINDOW, file.warmedTo(), "a new file is warmed one window deep, not whole");
        assertResidentMiB(file, WINDOW / MIB);
        assertEquals(NativeIO.isAvailable(), file.isLocked(), "mlocked where the platform allows");

        // the writer stops inside a page, as records do
        int written = WINDOW + WINDOW / 2 + 4 * MIB + 100;
        append(file, written);
        file.flush(0);
        // the allocator thread moves the window: more than half a window ahead of the writer is warm ...
        await().atMost(Duration.ofSeconds(30)).until(file::warmedTo, w -> w > written + WINDOW / 2);
        assertTrue(file.warmedTo() < written + WINDOW + MappedFile.OS_PAGE_SIZE, "at most a window ahead: " + file.warmedTo());
        // ... ending on a page boundary, where the next move starts (mlock and madvise take page-aligned ranges)
        assertEquals(0, file.warmedTo() % MappedFile.OS_PAGE_SIZE, "window end " + file.warmedTo());
        // ... and what lies more than a window behind it, flushed, is no longer in this process
        await().atMost(Duration.ofSeconds(30)).untilAsserted(
            () -> assertResidentMiB(file, (file.warmedTo() - (written - WINDOW)) / MIB));

        append(file, FILE_SIZE - written);
        file.flush(0);
        assertFalse(file.isLocked(), "munlocked once written and flushed");
        assertResidentMiB(file, WINDOW / MIB);
    }

    @Test
    void withoutWarmupNothingIsLockedOrFaultedIn() throws IOException {
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, false, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        MappedFile file = queue.lastFileOrCreate(0);
        assertEquals(0, file.warmedTo());
        file.keepWarm();
        assertEquals(0, file.warmedTo(), "keepWarm does not start warming a file that was never warmed");
        assertEquals(0, ProcessResources.residentKiB(file.path()));
    }

    @Test
    void aWrittenFileReadWholeIsGivenBackWhole() throws IOException {
        assumeTrue(NativeIO.isAvailable(), "madvise needs JNA");
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, false, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        MappedFile file = queue.lastFileOrCreate(0);
        append(file, FILE_SIZE);
        file.flush(0);

        readEveryPage(file, 0, FILE_SIZE);
        assertResidentMiB(file, FILE_SIZE / MIB);

        service.giveBackReadPagesOf(queue);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertResidentMiB(file, 0));
        readEveryPage(file, 0, FILE_SIZE);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertResidentMiB(file, 0));
    }

    @Test
    void theFileBeingWrittenKeepsTheWritersWindowsAndGivesBackWhatReadersFaultedInBehindThem() throws IOException {
        assumeTrue(NativeIO.isAvailable(), "madvise needs JNA");
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, true, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        service.giveBackReadPagesOf(queue);
        MappedFile file = queue.lastFileOrCreate(0);
        int written = 2 * WINDOW + 4 * MIB + 100;
        append(file, written);
        file.flush(0);
        await().atMost(Duration.ofSeconds(30)).until(file::warmedTo, w -> w > written + WINDOW / 2);

        readEveryPage(file, 0, written);
        // what stays: the window behind the writer (newest messages) and the warm window ahead of it
        long keptMiB = (file.warmedTo() - (written - WINDOW)) / MIB;
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertResidentMiB(file, keptMiB));
    }

    @Test
    void afterARestartTheWriterGoesOnInAWarmWindowAndTheNextFileIsMadeAhead() throws IOException {
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, true, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        int written = WINDOW + 4 * MIB + 100;
        MappedFile before = queue.lastFileOrCreate(0);
        append(before, written);
        before.flush(0);
        queue.shutdown();
        service.shutdown();

        // a restart: the files are loaded, recovery drops those after the end and resumes the writer at it
        service = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, true, 16, null);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
        queue.load();
        queue.truncateDirtyFiles(FILE_SIZE - 1);
        queue.resumeAt(written);
        MappedFile file = queue.lastFile();

        long windowEnd = Alignment.up(written + WINDOW, MappedFile.OS_PAGE_SIZE);
        await().atMost(Duration.ofSeconds(30)).until(file::warmedTo, w -> w == windowEnd);
        assertEquals(NativeIO.isAvailable(), file.isLocked(), "mlocked where the platform allows");
        // the window ahead of the writer only: nothing below it was faulted in (the last page, zeroed by the
        // truncation, is within the slack)
        assertResidentMiB(file, WINDOW / MIB);
        Path next = dir.resolve(StoreFiles.fileName(FILE_SIZE));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(next));
        assertTrue(service.isRequested(next), "made ahead, waiting for the writer's roll");
    }

    private static void append(MappedFile file, int bytes) {
        ByteBuffer chunk = ByteBuffer.allocate(MIB);
        for (int done = 0; done < bytes; done += MIB) {
            for (int i = 0; i < MIB; i++) {
                chunk.put(i, pattern(done + i));
            }
            chunk.clear().limit(Math.min(MIB, bytes - done));
            assertTrue(file.appendRaw(chunk));
        }
    }

    private static byte pattern(int position) {
        return (byte) (position * 31 + (position >>> 20));
    }

    /** Reads one byte of every page through {@link MappedFile#select}, as a consumer's read faults it in. */
    private static void readEveryPage(MappedFile file, int from, int to) {
        try (SelectedBuffer selected = file.select(from, to - from)) {
            assertNotNull(selected);
            ByteBuffer bytes = selected.buffer();
            for (int pos = 0; pos < to - from; pos += MappedFile.OS_PAGE_SIZE) {
                assertEquals(pattern(from + pos), bytes.get(pos), "byte at " + (from + pos));
            }
        }
    }

    private static void assertResidentMiB(MappedFile file, long expectedMiB) throws IOException {
        long kib = ProcessResources.residentKiB(file.path());
        assertTrue(Math.abs(kib - expectedMiB * 1024) <= SLACK_KIB,
            "resident " + kib + " KiB of " + file.path().getFileName() + ", expected about " + expectedMiB + " MiB");
    }
}
