package io.basalt.store.mappedfile;

import io.basalt.store.SelectedBuffer;

import static io.basalt.store.mappedfile.MappedFileTest.filled;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedFileQueueTest {
    static final int FILE_SIZE = 1 << 20;

    @TempDir
    Path dir;

    private MappedFileQueue queueWithFiles(int count) throws IOException {
        MappedFileQueue queue = new MappedFileQueue(dir, FILE_SIZE, null);
        for (int i = 0; i < count; i++) {
            MappedFile file = queue.lastFileOrCreate(0);
            assertTrue(file.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE, i + 1))));
        }
        return queue;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void rollsToTheNextFileExactlyAtTheBoundary() throws IOException {
        MappedFileQueue queue = new MappedFileQueue(dir, FILE_SIZE, null);
        try {
            assertNull(queue.lastFile());
            assertEquals(-1, queue.minOffset());
            MappedFile first = queue.lastFileOrCreate(5L * FILE_SIZE + 17);
            assertEquals(5L * FILE_SIZE, first.fileFromOffset(), "rounded down to a file boundary");

            first.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE - 1, 1)));
            assertSame(first, queue.lastFileOrCreate(0), "one byte left: no roll");
            first.appendRaw(ByteBuffer.wrap(filled(1, 1)));
            MappedFile second = queue.lastFileOrCreate(0);
            assertEquals(6L * FILE_SIZE, second.fileFromOffset());
            assertEquals(List.of(StoreFiles.fileName(5L * FILE_SIZE), StoreFiles.fileName(6L * FILE_SIZE)), names());

            second.appendRaw(ByteBuffer.wrap(filled(100, 2)));
            assertEquals(5L * FILE_SIZE, queue.minOffset());
            assertEquals(6L * FILE_SIZE + 100, queue.maxOffset());
            assertEquals(6L * FILE_SIZE + 100, queue.appendedOffset());
            assertSame(first, queue.findFileByOffset(6L * FILE_SIZE - 1, false));
            assertSame(second, queue.findFileByOffset(6L * FILE_SIZE, false));
            assertNull(queue.findFileByOffset(7L * FILE_SIZE, false));
            assertSame(first, queue.findFileByOffset(0, true));
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void commitAndFlushAdvanceOneFileAtATime() throws IOException {
        MappedFileQueue queue = queueWithFiles(2);
        try {
            queue.lastFileOrCreate(0).appendRaw(ByteBuffer.wrap(filled(10, 3)));
            assertTrue(queue.commit(0));
            assertEquals(FILE_SIZE, queue.committedOffset());
            assertTrue(queue.flush(0));
            assertEquals(FILE_SIZE, queue.flushedOffset());
            assertTrue(queue.flush(0));
            assertEquals(2L * FILE_SIZE, queue.flushedOffset());
            assertTrue(queue.flush(0));
            assertEquals(2L * FILE_SIZE + 10, queue.flushedOffset());
            assertFalse(queue.flush(0), "nothing left to flush");
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void aFullFileIsFlushedToItsEndWhateverTheLeastPages() throws IOException {
        MappedFileQueue queue = new MappedFileQueue(dir, FILE_SIZE, null);
        try {
            MappedFile first = queue.lastFileOrCreate(0);
            first.appendRaw(ByteBuffer.wrap(filled(FILE_SIZE - 100, 1)));
            assertTrue(queue.flush(4));
            assertEquals(FILE_SIZE - 100, queue.flushedOffset());
            first.appendRaw(ByteBuffer.wrap(filled(100, 2)));
            queue.lastFileOrCreate(0).appendRaw(ByteBuffer.wrap(filled(10, 3)));
            assertTrue(queue.flush(4), "the last 100 bytes of a full file need no 4 pages");
            assertEquals(FILE_SIZE, queue.flushedOffset());
            assertFalse(queue.flush(4), "10 bytes in the next file are fewer than 4 pages");
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void aFailedForceLeavesFlushedWhereWhereItWas() throws IOException {
        MappedFileQueue queue = new MappedFileQueue(dir, FILE_SIZE, null);
        try {
            MappedFile file = queue.lastFileOrCreate(0);
            file.appendRaw(ByteBuffer.wrap(filled(100, 1)));
            assertTrue(queue.flush(0));
            file.appendRaw(ByteBuffer.wrap(filled(100, 2)));
            file.beforeForce(() -> {
                throw new IOException("injected: EIO");
            });
            assertThrows(IOException.class, () -> queue.flush(0));
            assertEquals(100, queue.flushedOffset());
            assertEquals(100, file.flushedPosition());
            file.beforeForce(null);
            assertTrue(queue.flush(0));
            assertEquals(200, queue.flushedOffset());
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void loadMapsContiguousFilesAsFullAndRemovesLeftovers() throws IOException {
        queueWithFiles(3).shutdown();
        Files.write(dir.resolve(StoreFiles.fileName(0) + StoreFiles.DELETE_SUFFIX), new byte[1]);
        Files.write(dir.resolve(StoreFiles.fileName(9L * FILE_SIZE) + MappedFile.ALLOCATING_SUFFIX), new byte[1]);

        MappedFileQueue loaded = new MappedFileQueue(dir, FILE_SIZE, null);
        try {
            loaded.load();
            assertEquals(3, loaded.files().size());
            assertEquals(0, loaded.minOffset());
            assertEquals(3L * FILE_SIZE, loaded.maxOffset());
            assertEquals(3, names().size(), "leftovers removed");
            try (SelectedBuffer selected = loaded.findFileByOffset(FILE_SIZE + 5, false).select(5, 3)) {
                byte[] out = new byte[3];
                selected.buffer().get(out);
                assertArrayEquals(filled(3, 2), out);
            }
        } finally {
            loaded.shutdown();
        }
    }

    @Test
    void loadRefusesAFileNameThatIsNotAnOffset() throws IOException {
        queueWithFiles(1).shutdown();
        Files.write(dir.resolve("0000000000000000000x"), new byte[FILE_SIZE]);
        IOException e = assertThrows(IOException.class, () -> new MappedFileQueue(dir, FILE_SIZE, null).load());
        assertTrue(e.getMessage().contains("file 0000000000000000000x: name is not a 20-digit offset"), e.getMessage());
    }

    @Test
    void loadRefusesAFileOfTheWrongSize() throws IOException {
        queueWithFiles(2).shutdown();
        try (var ch = java.nio.channels.FileChannel.open(dir.resolve(StoreFiles.fileName(FILE_SIZE)),
            java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(4096);
        }
        IOException e = assertThrows(IOException.class, () -> new MappedFileQueue(dir, FILE_SIZE, null).load());
        assertTrue(e.getMessage().contains("file " + StoreFiles.fileName(FILE_SIZE) + ": size 4096 bytes, expected "
            + FILE_SIZE), e.getMessage());
    }

    @Test
    void loadRefusesAGapBetweenFiles() throws IOException {
        queueWithFiles(3).shutdown();
        Files.delete(dir.resolve(StoreFiles.fileName(FILE_SIZE)));
        IOException e = assertThrows(IOException.class, () -> new MappedFileQueue(dir, FILE_SIZE, null).load());
        assertTrue(e.getMessage().contains("file " + StoreFiles.fileName(2L * FILE_SIZE) + " starts at offset "
            + 2L * FILE_SIZE + " but the previous file ends at " + FILE_SIZE + " (files are missing)"), e.getMessage());
    }

    @Test
    void truncateDirtyFilesZeroesTheHoldingFileAndDeletesLaterOnes() throws IOException {
        MappedFileQueue queue = queueWithFiles(3);
        long cut = FILE_SIZE + 1000;
        try {
            queue.resumeAt(3L * FILE_SIZE);
            queue.truncateDirtyFiles(cut);
            assertEquals(2, queue.files().size());
            assertEquals(cut, queue.maxOffset());
            assertEquals(cut, queue.flushedOffset());
            assertEquals(cut, queue.committedOffset());
            assertEquals(List.of(StoreFiles.fileName(0), StoreFiles.fileName(FILE_SIZE)), names());
        } finally {
            queue.shutdown();
        }
        byte[] holding = Files.readAllBytes(dir.resolve(StoreFiles.fileName(FILE_SIZE)));
        assertArrayEquals(filled(1000, 2), Arrays.copyOfRange(holding, 0, 1000));
        assertArrayEquals(new byte[FILE_SIZE - 1000], Arrays.copyOfRange(holding, 1000, FILE_SIZE));
    }

    @Test
    void deleteExpiredFilesByTimeKeepsTheLastFileAndStopsAtAHeldOne() throws IOException {
        MappedFileQueue queue = queueWithFiles(4);
        try {
            FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
            for (MappedFile file : queue.files()) {
                Files.setLastModifiedTime(file.path(), old);
            }
            SelectedBuffer reader = queue.files().get(1).select(0, 10);
            assertEquals(1, queue.deleteExpiredFilesByTime(60_000, 0, 0, false), "stops at the held second file");
            assertEquals(FILE_SIZE, queue.minOffset());
            reader.release();

            assertEquals(2, queue.deleteExpiredFilesByTime(60_000, 1, 0, false), "never the last file");
            assertEquals(List.of(StoreFiles.fileName(3L * FILE_SIZE)), names());
            assertEquals(0, queue.deleteExpiredFilesByTime(60_000, 0, 0, true));
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void aForcedCleanNamesEachUnexpiredFileItDeletesInAWarnLineAndCountsIt() throws IOException {
        ch.qos.logback.classic.Logger logger =
            (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(MappedFileQueue.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
            new ch.qos.logback.core.read.ListAppender<>();
        log.start();
        logger.addAppender(log);
        MappedFileQueue queue = queueWithFiles(3);
        try {
            assertEquals(2, queue.deleteExpiredFilesByTime(3_600_000, 0, 0, true, "forced clean, disk 90% used"));
            assertEquals(2, queue.deletedBeforeExpiry());
            List<String> warns = log.list.stream()
                .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            assertEquals(2, warns.size(), warns.toString());
            assertTrue(warns.get(0).contains(StoreFiles.fileName(0)) && warns.get(0).contains("disk 90% used"), warns.get(0));
            assertTrue(warns.get(1).contains(StoreFiles.fileName(FILE_SIZE)), warns.get(1));
        } finally {
            logger.detachAppender(log);
            queue.shutdown();
        }
    }

    @Test
    void expiredFilesAreNotCountedAsDeletedEarly() throws IOException {
        MappedFileQueue queue = queueWithFiles(3);
        try {
            FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
            for (MappedFile file : queue.files()) {
                Files.setLastModifiedTime(file.path(), old);
            }
            assertEquals(2, queue.deleteExpiredFilesByTime(60_000, 0, 0, true, "forced clean"));
            assertEquals(0, queue.deletedBeforeExpiry());
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void freshFilesAreNotExpiredUnlessCleanedImmediately() throws IOException {
        MappedFileQueue queue = queueWithFiles(3);
        try {
            assertEquals(0, queue.deleteExpiredFilesByTime(3_600_000, 0, 0, false));
            assertEquals(2, queue.deleteExpiredFilesByTime(3_600_000, 0, 0, true));
            assertEquals(1, queue.files().size());
        } finally {
            queue.shutdown();
        }
    }

    @Test
    void destroyRemovesEveryFileAndTheDirectory() throws IOException {
        MappedFileQueue queue = queueWithFiles(2);
        queue.destroy();
        assertFalse(Files.exists(dir));
        Files.createDirectories(dir);
    }
}
