package io.basalt.store.mappedfile;

import static io.basalt.store.mappedfile.MappedFileTest.filled;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.ProcessResources;

import io.basalt.store.FlushDiskType;

class AllocateMappedFileServiceTest {
    static final int FILE_SIZE = 1 << 20;

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

    private void start(FlushDiskType type, boolean warm, TransientStorePool pool) {
        service = new AllocateMappedFileService(type, warm, 16, pool);
        service.start();
        queue = new MappedFileQueue(dir, FILE_SIZE, service);
    }

    @Test
    void theNextFileExistsBeforeItIsNeeded() throws IOException {
        start(FlushDiskType.ASYNC_FLUSH, true, null);
        MappedFile first = queue.lastFileOrCreate(0);
        assertEquals(0, first.fileFromOffset());
        Path second = dir.resolve(StoreFiles.fileName(FILE_SIZE));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(second));
        assertTrue(service.isRequested(second), "created and waiting to be handed out");

        assertTrue(first.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE, 1))));
        MappedFile next = queue.lastFileOrCreate(0);
        assertEquals(FILE_SIZE, next.fileFromOffset());
        assertFalse(service.isRequested(second), "handed out");
        Path third = dir.resolve(StoreFiles.fileName(2L * FILE_SIZE));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(third));
        assertSame(next, queue.lastFile());
    }

    @Test
    void warmupAllocatesTouchesAndLocksTheFileUntilItIsFull() throws Exception {
        start(FlushDiskType.SYNC_FLUSH, true, null);
        MappedFile file = queue.lastFileOrCreate(0);
        assertTrue(FileBlocks.allocatedBytes(file.path()) >= FILE_SIZE, "not sparse");  // ext4 may add an extent block
        assertEquals(FILE_SIZE / 1024, ProcessResources.residentKiB(file.path()), "every page faulted in");
        assertEquals(NativeIO.isAvailable(), file.isLocked(), "mlocked where the platform allows");

        file.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE, 2)));
        file.flush(0);
        assertFalse(file.isLocked(), "munlocked once written and flushed");
    }

    @Test
    void everyMlockHasItsMunlockWhenTheFileIsUnmapped() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(NativeIO.isAvailable(), "mlock needs JNA");
        long lockedBefore = lockedKiB();
        start(FlushDiskType.ASYNC_FLUSH, true, null);
        MappedFile file = queue.lastFileOrCreate(0);
        org.junit.jupiter.api.Assumptions.assumeTrue(file.isLocked(), "mlock not permitted here");
        assertTrue(lockedKiB() >= lockedBefore + FILE_SIZE / 1024);
        queue.shutdown();
        queue = null;
        service.shutdown();
        service = null;
        assertEquals(lockedBefore, lockedKiB(), "the half-written file and the preallocated next one are unlocked");
    }

    private static long lockedKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmLck:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmLck in /proc/self/status");
    }

    @Test
    void withoutWarmupTheFileIsAllocatedButNotTouched() throws Exception {
        start(FlushDiskType.ASYNC_FLUSH, false, null);
        MappedFile file = queue.lastFileOrCreate(0);
        assertTrue(FileBlocks.allocatedBytes(file.path()) >= FILE_SIZE, "not sparse");  // ext4 may add an extent block
        assertEquals(0, ProcessResources.residentKiB(file.path()));
        assertFalse(file.isLocked());
    }

    @Test
    void aFailedCreationIsAClearErrorAndTheServiceCarriesOn() throws IOException {
        start(FlushDiskType.ASYNC_FLUSH, false, null);
        Path notADirectory = dir.resolve("plain-file");
        Files.write(notADirectory, new byte[1]);
        IOException e = assertThrows(IOException.class, () -> service.allocate(
            notADirectory.resolve(StoreFiles.fileName(0)), notADirectory.resolve(StoreFiles.fileName(FILE_SIZE)),
            FILE_SIZE));
        assertTrue(e.getMessage().startsWith("create mapped file " + notADirectory.resolve(StoreFiles.fileName(0))
            + " failed"), e.getMessage());

        assertNotNull(queue.lastFileOrCreate(0), "later requests still served");
    }

    @Test
    void aCallerWaitsBoundedAndGetsATimeoutError() {
        AllocateMappedFileService idle = new AllocateMappedFileService(FlushDiskType.ASYNC_FLUSH, false, 16, null, 100);
        Path next = dir.resolve(StoreFiles.fileName(0));
        IOException e = assertThrows(IOException.class,
            () -> idle.allocate(next, dir.resolve(StoreFiles.fileName(FILE_SIZE)), FILE_SIZE));
        assertEquals("create mapped file " + next + " timed out after 100 ms", e.getMessage());
        idle.shutdown();
    }

    @Test
    void transientPoolBuffersBackNewFilesAndAnEmptyPoolFallsBackToAPlainFile() throws IOException {
        TransientStorePool pool = new TransientStorePool(1, FILE_SIZE);
        try {
            start(FlushDiskType.ASYNC_FLUSH, false, pool);
            MappedFile first = queue.lastFileOrCreate(0);
            assertTrue(first.hasWriteBuffer());
            Path second = dir.resolve(StoreFiles.fileName(FILE_SIZE));
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(second));
            assertEquals(0, pool.availableBufferCount());

            first.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE, 3)));
            assertEquals(FILE_SIZE, first.commit(0));
            assertFalse(first.hasWriteBuffer());
            assertEquals(1, pool.availableBufferCount(), "returned once full and committed");

            MappedFile plain = queue.lastFileOrCreate(0);
            assertFalse(plain.hasWriteBuffer(), "pool was empty when it was created: plain mapped file");
            plain.appendRaw(ByteBuffer.wrap(filled(10, 4)));
            assertEquals(10, plain.readPosition());
        } finally {
            queue.shutdown();
            queue = null;
            service.shutdown();
            service = null;
            pool.destroy();
        }
    }
}
