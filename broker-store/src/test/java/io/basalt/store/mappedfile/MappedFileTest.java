package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.ProcessResources;

class MappedFileTest {
    static final int FILE_SIZE = 1 << 20;

    @TempDir
    Path dir;

    static AppendCallback bytes(byte[] data) {
        return (offset, target) -> {
            target.put(data);
            return data.length;
        };
    }

    static byte[] filled(int length, int value) {
        byte[] data = new byte[length];
        Arrays.fill(data, (byte) value);
        return data;
    }

    static byte[] read(SelectedBuffer selected) {
        byte[] out = new byte[selected.size()];
        selected.buffer().duplicate().get(out);
        return out;
    }

    @Test
    void fileNameIsTheTwentyDigitOffsetOfTheFirstByte() throws IOException {
        assertEquals("00000000000000000000", StoreFiles.fileName(0));
        assertEquals("00000000001073741824", StoreFiles.fileName(1L << 30));
        assertEquals(1L << 30, StoreFiles.parseFileName("00000000001073741824"));
        assertEquals(-1, StoreFiles.parseFileName("0000000000107374182"));
        assertEquals(-1, StoreFiles.parseFileName("0000000000107374182x"));

        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(3L * FILE_SIZE)), FILE_SIZE, null);
        try {
            assertEquals(3L * FILE_SIZE, file.fileFromOffset());
            assertEquals(FILE_SIZE, Files.size(file.path()));
        } finally {
            file.close();
        }
        assertThrows(IOException.class, () -> MappedFile.open(dir.resolve("not-an-offset"), FILE_SIZE, null));
    }

    @Test
    void newFileHasAllItsBlocksAllocated() throws Exception {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            assertTrue(FileBlocks.allocatedBytes(file.path()) >= FILE_SIZE, "not sparse");  // ext4 may add an extent block
            assertFalse(Files.exists(dir.resolve(StoreFiles.fileName(0) + MappedFile.ALLOCATING_SUFFIX)));
        } finally {
            file.close();
        }
    }

    @Test
    void aFallocatedFileHasAllItsBlocksReadsAsZerosAndKeepsWhatIsWritten() throws Exception {
        Path path = dir.resolve(StoreFiles.fileName(0));
        MappedFile file = MappedFile.open(path, FILE_SIZE, null, null, MappedFile.Allocation.FALLOCATE, 0);
        try {
            assertTrue(FileBlocks.allocatedBytes(path) >= FILE_SIZE, "not sparse");
            byte[] all = Files.readAllBytes(path);
            assertEquals(FILE_SIZE, all.length);
            for (byte b : all) {
                assertEquals(0, b, "an unwritten block reads as zero, like a zero-filled one");
            }
            file.append((offset, target) -> {
                target.put(filled(100, 7));
                return 100;
            });
            file.flush(0);
        } finally {
            file.close();
        }
        assertArrayEquals(filled(100, 7), Arrays.copyOf(Files.readAllBytes(path), 100));
    }

    @Test
    void existingFileOfAnotherSizeIsRefused() throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(0));
        Files.write(path, new byte[100]);
        IOException e = assertThrows(IOException.class, () -> MappedFile.open(path, FILE_SIZE, null));
        assertTrue(e.getMessage().contains("size 100 bytes, expected " + FILE_SIZE), e.getMessage());
    }

    @Test
    void appendEncodesInPlaceAndReadersSeeTheBytes() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(FILE_SIZE)), FILE_SIZE, null);
        try {
            AtomicReference<Long> seenOffset = new AtomicReference<>();
            int written = file.append((offset, target) -> {
                seenOffset.set(offset);
                assertEquals(0, target.position());
                assertEquals(FILE_SIZE, target.limit());
                target.put(filled(100, 1));
                return 100;
            });
            assertEquals(100, written);
            assertEquals(FILE_SIZE, seenOffset.get());
            file.append((offset, target) -> {
                assertEquals(FILE_SIZE + 100L, offset);
                assertEquals(FILE_SIZE - 100, target.limit());
                target.put(filled(50, 2));
                return 50;
            });
            assertEquals(150, file.wrotePosition());
            assertEquals(150, file.committedPosition());
            assertEquals(150, file.readPosition());

            try (SelectedBuffer selected = file.select(100, 50)) {
                assertEquals(FILE_SIZE + 100L, selected.startOffset());
                assertArrayEquals(filled(50, 2), read(selected));
                assertTrue(selected.buffer().isReadOnly());
                assertSame(file, selected.owner());
            }
            try (SelectedBuffer all = file.select(0)) {
                assertEquals(150, all.size());
            }
            assertNull(file.select(100, 51), "beyond readPosition");
            assertNull(file.select(150), "nothing to read");
        } finally {
            file.close();
        }
    }

    @Test
    void appendFillsTheFileToTheExactBoundary() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            assertTrue(file.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE - 10, 3))));
            assertFalse(file.appendRaw(ByteBuffer.wrap(filled(11, 4))), "11 bytes do not fit in 10");
            assertEquals(FILE_SIZE - 10, file.wrotePosition());
            assertFalse(file.isFull());
            assertTrue(file.appendRaw(ByteBuffer.wrap(filled(10, 4))));
            assertTrue(file.isFull());
            assertEquals(0, file.append((offset, target) -> {
                throw new AssertionError("not called on a full file");
            }));
        } finally {
            file.close();
        }
    }

    @Test
    void callbackClaimingMoreThanTheRoomLeftIsRejected() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            assertThrows(IllegalStateException.class, () -> file.append((offset, target) -> FILE_SIZE + 1));
            assertEquals(0, file.wrotePosition());
        } finally {
            file.close();
        }
    }

    @Test
    void flushAdvancesOnlyWhenEnoughPagesAreDirty() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            file.appendRaw(ByteBuffer.wrap(filled(3 * MappedFile.OS_PAGE_SIZE + 1, 5)));
            assertEquals(0, file.flush(4), "3 dirty pages < 4");
            assertEquals(3 * MappedFile.OS_PAGE_SIZE + 1, file.flush(3));
            file.appendRaw(ByteBuffer.wrap(filled(10, 6)));
            assertEquals(3 * MappedFile.OS_PAGE_SIZE + 11, file.flush(0));
            assertEquals(3 * MappedFile.OS_PAGE_SIZE + 11, file.flushedPosition());
        } finally {
            file.close();
        }
    }

    @Test
    void aPeriodicFlushOfALargeFolioFileForcesWholeFoliosFirst() throws IOException {
        int folio = 2 << 20;
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), 4 * folio, null, null,
            MappedFile.Allocation.FALLOCATE, 0);
        try {
            file.appendRaw(ByteBuffer.wrap(filled(folio + 100 * 1024, 1)));
            assertEquals(folio, file.flush(4), "the folio the writer is filling waits for the next round");
            assertEquals(folio + 100 * 1024, file.flush(4), "when it is all there is to force, it is forced");

            file.appendRaw(ByteBuffer.wrap(filled(folio, 2)));
            assertEquals(2 * folio, file.flush(4));
            assertEquals(2 * folio + 100 * 1024, file.flush(0), "a thorough flush forces everything");

            file.appendRaw(ByteBuffer.wrap(filled(2 * folio - 100 * 1024, 3)));
            assertEquals(4 * folio, file.flush(4), "a full file is forced to its end");
        } finally {
            file.close();
        }
    }

    @Test
    void aPeriodicFlushOfASmallFolioFileForcesEverythingReadable() throws IOException {
        int folio = 2 << 20;
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), 2 * folio, null, null,
            MappedFile.Allocation.ZERO_FILL, 0);
        try {
            file.appendRaw(ByteBuffer.wrap(filled(folio + 100 * 1024, 1)));
            assertEquals(folio + 100 * 1024, file.flush(4));
        } finally {
            file.close();
        }
    }

    @Test
    void failedForceDoesNotAdvanceFlushedPosition() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            file.appendRaw(ByteBuffer.wrap(filled(5000, 7)));
            file.beforeForce(() -> {
                throw new IOException("injected: EIO");
            });
            IOException e = assertThrows(IOException.class, () -> file.flush(0));
            assertEquals("injected: EIO", e.getMessage());
            assertEquals(0, file.flushedPosition());
            assertFalse(file.isHeld(), "the flush let go of its hold");

            file.beforeForce(null);
            assertEquals(5000, file.flush(0));
        } finally {
            file.close();
        }
    }

    @Test
    void readerSliceSurvivesDestroyUntilReleased() throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(0));
        MappedFile file = MappedFile.open(path, FILE_SIZE, null);
        file.appendRaw(ByteBuffer.wrap(filled(4096, 9)));
        int mappings = MappedFile.liveMappings();
        SelectedBuffer selected = file.select(0, 4096);
        assertNotNull(selected);

        assertFalse(file.destroy(0), "a reader still holds it");
        assertFalse(file.isAvailable());
        assertFalse(Files.exists(path), "renamed away at once");
        assertTrue(Files.exists(dir.resolve(path.getFileName() + StoreFiles.DELETE_SUFFIX)));
        assertNull(file.select(0, 10), "no new readers after destroy");
        assertEquals(mappings, MappedFile.liveMappings(), "still mapped under the reader");
        assertArrayEquals(filled(4096, 9), read(selected));

        selected.release();
        selected.release();
        assertEquals(mappings - 1, MappedFile.liveMappings());
        assertFalse(Files.exists(dir.resolve(path.getFileName() + StoreFiles.DELETE_SUFFIX)));
        assertTrue(file.destroy(0));
    }

    @Test
    void destroyWithoutReadersDeletesAtOnce() throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(0));
        MappedFile file = MappedFile.open(path, FILE_SIZE, null);
        assertTrue(file.destroy(1000));
        try (var entries = Files.list(dir)) {
            assertEquals(0, entries.count());
        }
        assertThrows(IllegalStateException.class, () -> file.appendRaw(ByteBuffer.allocate(1)));
    }

    @Test
    void truncateZeroesTheRestAndResetsPositions() throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(0));
        MappedFile file = MappedFile.open(path, FILE_SIZE, null);
        try {
            file.appendRaw(ByteBuffer.wrap(filled(10_000, 8)));
            file.flush(0);
            file.truncateTo(6000);
            assertEquals(6000, file.wrotePosition());
            assertEquals(6000, file.committedPosition());
            assertEquals(6000, file.flushedPosition());
        } finally {
            file.close();
        }
        byte[] onDisk = Files.readAllBytes(path);
        assertArrayEquals(filled(6000, 8), Arrays.copyOfRange(onDisk, 0, 6000));
        assertArrayEquals(new byte[FILE_SIZE - 6000], Arrays.copyOfRange(onDisk, 6000, FILE_SIZE));
    }

    @Test
    void recoveredPositionsResetTheCachedTailSoAppendsGetSmallPages() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(NativeIO.isAvailable(), "needs madvise");
        int size = 4 << 20;
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), size, null);
        try {
            file.setPositions(size, size, size);
            try (SelectedBuffer all = file.select(0)) {
                for (int pos = 0; pos < size; pos += MappedFile.OS_PAGE_SIZE) {
                    all.buffer().get(pos);
                }
            }
            assertEquals(size / 1024, ProcessResources.residentKiB(file.path()));
            file.setPositions(3 << 20, 3 << 20, 3 << 20);
            assertEquals(2048, ProcessResources.residentKiB(file.path()), "dropped from the 2 MiB boundary below wrote");
        } finally {
            file.close();
        }
    }

    @Test
    void setPositionsRejectsAnInconsistentTriple() throws IOException {
        MappedFile file = MappedFile.open(dir.resolve(StoreFiles.fileName(0)), FILE_SIZE, null);
        try {
            assertThrows(IllegalArgumentException.class, () -> file.setPositions(10, 20, 0));
            assertThrows(IllegalArgumentException.class, () -> file.setPositions(FILE_SIZE + 1, 0, 0));
            file.setPositions(30, 20, 10);
            assertEquals(30, file.wrotePosition());
            assertEquals(10, file.flushedPosition());
        } finally {
            file.close();
        }
    }
}
