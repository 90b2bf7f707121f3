package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import static io.basalt.store.mappedfile.MappedFileTest.filled;
import static io.basalt.store.mappedfile.MappedFileTest.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransientStorePoolTest {
    static final int FILE_SIZE = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void aPoolLargerThanTheDirectMemoryIsAClearStartUpError() {
        // Each buffer alone is over the tests' 1 GiB direct-memory cap, so nothing is allocated.
        int hugeFile = Integer.MAX_VALUE - 8;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TransientStorePool(5, hugeFile));
        assertTrue(e.getMessage().contains("buffer 1 of 5") && e.getMessage().contains("-XX:MaxDirectMemorySize")
            && e.getMessage().contains("transientStorePoolSize"), e.getMessage());
    }

    @Test
    void readersSeeOnlyCommittedBytesAndTheBufferReturnsWhenFullAndCommitted() throws IOException {
        TransientStorePool pool = new TransientStorePool(2, FILE_SIZE);
        Path path = dir.resolve(StoreFiles.fileName(0));
        MappedFile file = MappedFile.open(path, FILE_SIZE, pool.borrowBuffer(), pool::returnBuffer,
            MappedFile.Allocation.ZERO_FILL, 0);
        try {
            assertEquals(1, pool.availableBufferCount());
            file.append((offset, target) -> {
                target.put(filled(3 * MappedFile.OS_PAGE_SIZE, 1));
                return 3 * MappedFile.OS_PAGE_SIZE;
            });
            assertEquals(3 * MappedFile.OS_PAGE_SIZE, file.wrotePosition());
            assertEquals(0, file.readPosition());
            assertNull(file.select(0, 1), "nothing committed yet");
            assertEquals(0, file.flush(0), "nothing to flush before commit");
            assertArrayEquals(new byte[16], Arrays.copyOf(Files.readAllBytes(path), 16), "not in the file yet");

            assertEquals(0, file.commit(4), "3 pages < commitLeastPages 4");
            assertEquals(3 * MappedFile.OS_PAGE_SIZE, file.commit(3));
            try (SelectedBuffer selected = file.select(0)) {
                assertArrayEquals(filled(3 * MappedFile.OS_PAGE_SIZE, 1), read(selected));
            }
            assertEquals(3 * MappedFile.OS_PAGE_SIZE, file.flush(0));

            file.appendRaw(ByteBuffer.wrap(filled(100, 2)));
            assertEquals(3 * MappedFile.OS_PAGE_SIZE, file.readPosition(), "appended, not committed");
            assertNull(file.select(3 * MappedFile.OS_PAGE_SIZE, 1));
            file.commit(0);
            try (SelectedBuffer selected = file.select(3 * MappedFile.OS_PAGE_SIZE)) {
                assertArrayEquals(filled(100, 2), read(selected));
            }

            file.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE - file.wrotePosition(), 3)));
            assertTrue(file.hasWriteBuffer(), "full but not committed: keeps its buffer");
            assertEquals(FILE_SIZE, file.commit(4));
            assertFalse(file.hasWriteBuffer());
            assertEquals(2, pool.availableBufferCount());
            assertEquals(FILE_SIZE, file.flush(0));
        } finally {
            file.close();
            pool.destroy();
        }
        byte[] onDisk = Files.readAllBytes(path);
        assertArrayEquals(filled(100, 2), Arrays.copyOfRange(onDisk, 3 * MappedFile.OS_PAGE_SIZE,
            3 * MappedFile.OS_PAGE_SIZE + 100));
    }

    @Test
    void closingAFileGivesItsBufferBack() throws IOException {
        TransientStorePool pool = new TransientStorePool(1, FILE_SIZE);
        try {
            MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, pool.borrowBuffer(),
                pool::returnBuffer, MappedFile.Allocation.ZERO_FILL, 0);
            assertNull(pool.borrowBuffer(), "an empty pool answers at once");
            file.close();
            assertEquals(1, pool.availableBufferCount());
        } finally {
            pool.destroy();
        }
    }

    @Test
    void aBufferReturnedAfterDestroyIsFreedNotReused() {
        TransientStorePool pool = new TransientStorePool(1, FILE_SIZE);
        ByteBuffer borrowed = pool.borrowBuffer();
        pool.destroy();
        pool.returnBuffer(borrowed);
        assertEquals(0, pool.availableBufferCount());
        assertNull(pool.borrowBuffer());
    }
}
