package io.basalt.store.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.CorruptCommitLogException;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.mappedfile.MappedFileQueue;

/**
 * The durable point rule of CommitLog recovery: a torn tail past the checkpoint's recovery offset is
 * cut; a bad record below it, or one followed by valid records, stops start-up with file and offset,
 * or is skipped (and the records after it kept) under recoverySkipCorruptRecords.
 */
class CorruptRecordRecoveryTest {
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

    private TestLog logWith(int records, long durable) throws Exception {
        TestLog log = new TestLog(dir.resolve("commitlog"), FILE_SIZE);
        for (int i = 0; i < records; i++) {
            log.append(TestLog.message(i, 100 + (i * 37) % 3000), 10_000 + i);
        }
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        checkpoint.physicRecoveryOffset(durable < 0 ? log.writeOffset() : durable);
        return log;
    }

    /** A crash recovery when the checkpoint lags (its recovery offset is where the scan starts), else a normal one. */
    private RecoveryResult recover(TestLog log, boolean skip, List<RecordCheck> seen) throws Exception {
        queue = new MappedFileQueue(log.dir, FILE_SIZE, null);
        queue.load();
        boolean crashed = checkpoint.physicRecoveryOffset() < log.writeOffset();
        return new CommitLogRecovery(checkpoint, true, 1 << 20, false, skip).recover(queue, crashed, seen::add);
    }

    /** Flips one byte of record {@code i}'s body (its body CRC no longer matches). */
    private static void flipBodyByte(TestLog log, int i) throws IOException {
        long at = log.recordOffsets.get(i) + log.recordLengths.get(i) - 80;
        Path file = log.file(at - at % FILE_SIZE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at % FILE_SIZE);
            b.put(0, (byte) (b.get(0) ^ 0x5A));
            ch.write(b.rewind(), at % FILE_SIZE);
        }
    }

    @Test
    void tornTailPastTheDurablePointIsTruncatedAndReported() throws Exception {
        TestLog log = logWith(120, -2);
        checkpoint.physicRecoveryOffset(log.recordOffsets.get(100));
        long torn = log.recordOffsets.get(110);
        log.tearFrom(torn + log.recordLengths.get(110) / 2);
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, false, seen);
        assertEquals(torn, r.maxOffset());
        assertTrue(r.bytesDropped() > 0);
        assertEquals(log.recordsBefore(torn) - log.recordsBefore(r.scanStartOffset()), seen.size());
    }

    @Test
    void aFlippedByteBelowTheDurablePointStopsStartUpNamingFileAndOffset() throws Exception {
        TestLog log = logWith(120, -1);
        flipBodyByte(log, 110);
        long bad = log.recordOffsets.get(110);
        CorruptCommitLogException e = assertThrows(CorruptCommitLogException.class,
            () -> recover(log, false, new ArrayList<>()));
        assertEquals(bad, e.offset());
        assertEquals(log.file(bad - bad % FILE_SIZE), e.file());
        assertTrue(e.getMessage().contains(log.file(bad - bad % FILE_SIZE).toString()), e.getMessage());
        assertTrue(e.getMessage().contains("offset " + bad), e.getMessage());
        assertTrue(e.getMessage().contains("recoverySkipCorruptRecords"), e.getMessage());
        // nothing was cut: the records after the bad one are still there for the operator
        checkpoint.close();
        checkpoint = null;
        queue.shutdown();
        queue = null;
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        List<RecordCheck> seen = new ArrayList<>();
        assertEquals(log.writeOffset(), recover(log, true, seen).maxOffset());
    }

    @Test
    void theLastRecordCorruptBelowTheDurablePointStopsStartUp() throws Exception {
        TestLog log = logWith(60, -1);
        flipBodyByte(log, 59);
        CorruptCommitLogException e = assertThrows(CorruptCommitLogException.class,
            () -> recover(log, false, new ArrayList<>()));
        assertEquals(log.recordOffsets.get(59), e.offset());
        assertTrue(e.getMessage().contains("below the durable point"), e.getMessage());
    }

    @Test
    void pastTheDurablePointEvenADamagedRecordWithValidOnesAfterItIsATornTail() throws Exception {
        // nothing past the durable point was proven on disk: after a power loss pages land in any order
        TestLog log = logWith(120, -2);
        checkpoint.physicRecoveryOffset(log.recordOffsets.get(100));
        flipBodyByte(log, 115);
        RecoveryResult r = recover(log, false, new ArrayList<>());
        assertEquals(log.recordOffsets.get(115), r.maxOffset());
        assertTrue(r.bytesDropped() > 0);
    }

    @Test
    void aPageThatNeverReachedTheDiskPastTheDurablePointIsATornTailEvenWithRecordsAfterIt() throws Exception {
        TestLog log = logWith(120, -2);
        checkpoint.physicRecoveryOffset(log.recordOffsets.get(100));
        // unordered writeback before a power loss: the page holding the end of a record was lost,
        // the pages after it (the records that follow) were written
        int victim = 110;
        while (log.recordOffsets.get(victim) / 4096
            == (log.recordOffsets.get(victim) + log.recordLengths.get(victim) - 1) / 4096) {
            victim++;
        }
        long at = log.recordOffsets.get(victim);
        long end = at + log.recordLengths.get(victim);
        long pageStart = end - end % 4096;
        log.fill(pageStart, (int) (end - pageStart), (byte) 0);
        RecoveryResult r = recover(log, false, new ArrayList<>());
        assertEquals(at, r.maxOffset());
        assertTrue(r.bytesDropped() > 0);
    }

    @Test
    void theSkipFlagSkipsTheBadRecordAndKeepsEveryRecordAfterIt() throws Exception {
        TestLog log = logWith(120, -1);
        int firstInSecondFile = log.recordsBefore(FILE_SIZE);
        flipBodyByte(log, 40);
        flipBodyByte(log, firstInSecondFile);   // the first record of a file: found again at its successor
        List<RecordCheck> seen = new ArrayList<>();
        RecoveryResult r = recover(log, true, seen);
        assertEquals(log.writeOffset(), r.maxOffset());
        assertEquals(0, r.bytesDropped());
        assertEquals(2, r.skipped().size());
        assertEquals(log.recordOffsets.get(40), r.skipped().get(0).from());
        assertEquals(log.recordOffsets.get(41), r.skipped().get(0).to());
        assertEquals(log.recordOffsets.get(firstInSecondFile), r.firstSkippedOffset() == r.skipped().get(0).from()
            ? r.skipped().get(1).from() : -1);
        assertEquals(log.recordOffsets.get(firstInSecondFile + 1), r.skipped().get(1).to());
        List<Long> offsets = seen.stream().map(RecordCheck::physicalOffset).toList();
        List<Long> expected = new ArrayList<>(log.recordOffsets.subList(log.recordsBefore(r.scanStartOffset()), 120));
        expected.remove(log.recordOffsets.get(firstInSecondFile));
        expected.remove(log.recordOffsets.get(40));
        assertEquals(expected, offsets);
    }

    @Test
    void aLostFileBelowTheDurablePointStopsStartUpAndNamesWhereValidRecordsResume() throws Exception {
        TestLog log = logWith(200, -1);
        int firstInThirdFile = log.recordsBefore(2L * FILE_SIZE);
        // the whole third file lost: the fourth still starts with a valid record
        log.fill(2L * FILE_SIZE, FILE_SIZE, (byte) 0);
        CorruptCommitLogException e = assertThrows(CorruptCommitLogException.class,
            () -> recover(log, false, new ArrayList<>()));
        assertEquals(log.recordOffsets.get(firstInThirdFile), e.offset());
        assertTrue(e.getMessage().contains("a valid record follows at offset " + 3L * FILE_SIZE), e.getMessage());
    }
}
