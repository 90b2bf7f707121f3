package io.basalt.store.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;

class CommitLogRecoveryTest {
    private static final int FILE_SIZE = 64 * 1024;

    @TempDir
    Path dir;

    private StoreCheckpoint checkpoint;
    private MappedFileQueue queue;

    @AfterEach
    void close() {
        if (queue != null) {
            queue.shutdown();
        }
        if (checkpoint != null) {
            checkpoint.close();
        }
    }

    private TestLog logWith(int records) throws Exception {
        TestLog log = new TestLog(dir.resolve("commitlog"), FILE_SIZE);
        for (int i = 0; i < records; i++) {
            log.append(TestLog.message(i, 100 + (i * 37) % 3000), 10_000 + i);
        }
        return log;
    }

    private RecoveryResult recover(TestLog log, boolean crashed, List<RecordCheck> seen) throws Exception {
        checkpoint = checkpoint == null ? StoreCheckpoint.open(dir.resolve("checkpoint")) : checkpoint;
        queue = new MappedFileQueue(log.dir, FILE_SIZE, null);
        queue.load();
        return new CommitLogRecovery(checkpoint, true, 4 * 1024 * 1024).recover(queue, crashed, seen::add);
    }

    private void assertZeroFrom(TestLog log, long offset) throws Exception {
        long fileFrom = offset - offset % FILE_SIZE;
        byte[] bytes = Files.readAllBytes(log.file(fileFrom));
        for (int i = (int) (offset - fileFrom); i < bytes.length; i++) {
            if (bytes[i] != 0) {
                throw new AssertionError("byte " + (fileFrom + i) + " not zeroed");
            }
        }
    }

    private void assertPositionsAt(long end) {
        assertEquals(end, queue.maxOffset());
        assertEquals(end, queue.flushedOffset());
        assertEquals(end, queue.committedOffset());
        MappedFile last = queue.lastFile();
        assertEquals(end - last.fileFromOffset(), last.wrotePosition());
    }

    @Test
    void crashRecoveryCutsARecordTornMidWayAndDropsLaterFiles() throws Exception {
        TestLog log = logWith(120);
        int filesBefore = log.segments().size();
        int victim = log.recordsBefore(FILE_SIZE) + 3;   // a record in the second file
        long victimAt = log.recordOffsets.get(victim);
        log.tearFrom(victimAt + log.recordLengths.get(victim) / 2);
        log.garbage(victimAt + FILE_SIZE, 500, 1);        // a later file has bytes: it must go

        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, true, seen);
        assertTrue(r.crashRecovery());
        assertEquals(victimAt, r.maxOffset());
        assertEquals(victim, seen.size(), "no recovery offset or timestamps: scanned from the first file");
        assertTrue(r.bytesDropped() > 0);
        assertPositionsAt(victimAt);
        assertTrue(queue.files().size() < filesBefore);
        assertEquals(victimAt - victimAt % FILE_SIZE, queue.lastFile().fileFromOffset());
        assertZeroFrom(log, victimAt);
        assertFalse(Files.exists(log.file(victimAt - victimAt % FILE_SIZE + FILE_SIZE)));
    }

    @Test
    void crashRecoveryCutsGarbageAfterTheLastRecord() throws Exception {
        TestLog log = logWith(30);
        long end = log.writeOffset();
        log.garbage(end, 2000, 9);
        RecoveryResult r = recover(log, true, new ArrayList<>());
        assertEquals(end, r.maxOffset());
        assertTrue(r.bytesDropped() > 1900);
        assertPositionsAt(end);
        assertZeroFrom(log, end);
    }

    @Test
    void zeroedTailLosesNothingAndWritesNothing() throws Exception {
        TestLog log = logWith(30);
        long end = log.writeOffset();
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, true, seen);
        assertEquals(end, r.maxOffset());
        assertEquals(0, r.bytesDropped());
        assertEquals(30, seen.size());
        assertPositionsAt(end);
    }

    @Test
    void crashRecoveryStartsAtTheFileOfTheRecoveryOffset() throws Exception {
        TestLog log = logWith(200);
        assertTrue(log.segments().size() >= 5);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        long recoveryOffset = log.recordOffsets.get(log.recordsBefore(3L * FILE_SIZE) + 2);
        checkpoint.physicRecoveryOffset(recoveryOffset);
        // Corruption before the recovery point is not looked at: that part was durable.
        log.fill(log.recordOffsets.get(5) + 4, 4, (byte) 0x11);   // bad magic
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, true, seen);
        assertEquals(3L * FILE_SIZE, r.scanStartOffset());
        assertEquals(log.writeOffset(), r.maxOffset());
        assertEquals(200 - log.recordsBefore(3L * FILE_SIZE), seen.size());
        assertEquals(log.recordOffsets.get(log.recordsBefore(3L * FILE_SIZE)), seen.get(0).physicalOffset());
    }

    @Test
    void crashRecoveryWithoutRecoveryOffsetUsesCheckpointTimestamps() throws Exception {
        TestLog log = logWith(200);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        int firstOfFile2 = log.recordsBefore(2L * FILE_SIZE);
        // Records have store timestamps 10_000 + i; RocketMQ's rule subtracts 3 s.
        checkpoint.physicMsgTimestamp(10_000 + firstOfFile2 + 3000 + 1);
        checkpoint.logicsMsgTimestamp(10_000 + firstOfFile2 + 3000 + 1);
        RecoveryResult r = recover(log, true, new ArrayList<>());
        assertEquals(2L * FILE_SIZE, r.scanStartOffset());
        assertEquals(log.writeOffset(), r.maxOffset());
    }

    @Test
    void normalRecoveryChecksOnlyTheLastThreeFiles() throws Exception {
        TestLog log = logWith(300);
        int files = log.segments().size();
        assertTrue(files >= 6);
        log.fill(log.recordOffsets.get(5) + 4, 4, (byte) 0x11);   // bad magic in file 0: not checked after a clean shutdown
        log.zeroFrom(log.recordOffsets.get(299) + 10);         // the tail is still checked
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, false, seen);
        assertFalse(r.crashRecovery());
        assertEquals((long) (files - 3) * FILE_SIZE, r.scanStartOffset());
        assertEquals(log.recordOffsets.get(299), r.maxOffset());
        assertPositionsAt(log.recordOffsets.get(299));
    }

    @Test
    void logEndingWithEndOfFileMarkerContinuesInThePreallocatedNextFile() throws Exception {
        TestLog log = new TestLog(dir.resolve("commitlog"), FILE_SIZE);
        while (log.segments().size() < 2) {
            log.append(TestLog.message(log.recordOffsets.size(), 3000), 1);
        }
        // Rewind: keep the first file (ends with its END_OF_FILE marker) and an empty second file.
        long secondFile = FILE_SIZE;
        log.zeroFrom(secondFile);
        int inFirst = log.recordsBefore(FILE_SIZE);
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, true, seen);
        assertEquals(secondFile, r.maxOffset());
        assertEquals(inFirst, seen.size());
        assertEquals(2, queue.files().size());
        assertEquals(0, queue.lastFile().wrotePosition());
        assertEquals(FILE_SIZE, queue.files().get(0).wrotePosition());
    }

    @Test
    void preallocatedEmptyNextFileIsDroppedWhenTheLogEndsBeforeIt() throws Exception {
        int fileSize = 8 * 1024 * 1024;
        TestLog log = new TestLog(dir.resolve("commitlog"), fileSize);
        for (int i = 0; i < 5; i++) {
            log.append(TestLog.message(i, 100), 1);
        }
        long end = log.writeOffset();
        try (var raf = new java.io.RandomAccessFile(log.file(fileSize).toFile(), "rw")) {
            raf.setLength(fileSize);
        }
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        queue = new MappedFileQueue(log.dir, fileSize, null);
        queue.load();
        long writtenBefore = bytesWrittenByThisProcess();
        RecoveryResult r = new CommitLogRecovery(checkpoint, true, 1 << 20).recover(queue, false, c -> { });
        long written = bytesWrittenByThisProcess() - writtenBefore;
        assertEquals(end, r.maxOffset());
        assertEquals(1, queue.files().size());
        assertPositionsAt(end);
        assertTrue(written < 1024 * 1024, "the zero tail of the last file is not rewritten with zeros: wrote "
            + written + " bytes");
    }

    /** write(2) bytes of this process so far ({@code wchar} of /proc/self/io). */
    private static long bytesWrittenByThisProcess() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (line.startsWith("wchar:")) {
                return Long.parseLong(line.substring(6).trim());
            }
        }
        throw new AssertionError("no wchar in /proc/self/io");
    }

    @Test
    void recoveryMovesTheRecoveryOffsetToTheRecoveredEnd() throws Exception {
        TestLog log = logWith(50);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        long cut = log.recordOffsets.get(40);
        checkpoint.physicRecoveryOffset(log.recordOffsets.get(30));
        log.fill(cut + 4, 4, (byte) 0x11);
        log.tearFrom(cut + 8);
        RecoveryResult r = recover(log, true, new ArrayList<>());
        assertEquals(cut, r.maxOffset());
        assertEquals(cut, checkpoint.physicRecoveryOffset());
        try (StoreCheckpoint persisted = StoreCheckpoint.open(dir.resolve("checkpoint"))) {
            assertEquals(cut, persisted.physicRecoveryOffset());
        }
    }

    @Test
    void recordsLargerThanTodaysMaxMessageSizeSurvive() throws Exception {
        TestLog log = logWith(40);   // bodies up to 3 KiB
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        queue = new MappedFileQueue(log.dir, FILE_SIZE, null);
        queue.load();
        RecoveryResult r = new CommitLogRecovery(checkpoint, true, 100).recover(queue, true, c -> { });
        assertEquals(log.writeOffset(), r.maxOffset());
        assertEquals(40, r.recordsScanned());
    }

    @Test
    void recordCrcIsRequiredFromWhereBasaltBeganWriting() throws Exception {
        TestLog log = logWith(30);
        long victim = log.recordOffsets.get(20);
        long victimEnd = victim + log.recordLengths.get(20);
        log.fill(victimEnd - 5, 5, (byte) 0);      // torn inside the properties: the body CRC still matches
        log.tearFrom(victimEnd);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        checkpoint.recordCrcFromOffset(log.recordOffsets.get(10));
        RecoveryResult r = recover(log, true, new ArrayList<>());
        assertEquals(victim, r.maxOffset());
        assertEquals(-1, checkpoint.recordCrcFromOffset(), "this store goes on appending without the record CRC");
    }

    @Test
    void recoveryRecordsWhereRecordsWithTheRecordCrcBegin() throws Exception {
        TestLog log = logWith(10);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        queue = new MappedFileQueue(log.dir, FILE_SIZE, null);
        queue.load();
        RecoveryResult r = new CommitLogRecovery(checkpoint, true, 1 << 20, true).recover(queue, false, c -> { });
        assertEquals(log.writeOffset(), checkpoint.recordCrcFromOffset());
        try (StoreCheckpoint persisted = StoreCheckpoint.open(dir.resolve("checkpoint"))) {
            assertEquals(r.maxOffset(), persisted.recordCrcFromOffset());
        }
    }

    @Test
    void emptyStoreRecoversToZero() throws Exception {
        Files.createDirectories(dir.resolve("commitlog"));
        TestLog log = new TestLog(dir.resolve("commitlog"), FILE_SIZE);
        RecoveryResult r = recover(log, true, new ArrayList<>());
        assertEquals(0, r.maxOffset());
        assertEquals(0, queue.files().size());
    }
}
