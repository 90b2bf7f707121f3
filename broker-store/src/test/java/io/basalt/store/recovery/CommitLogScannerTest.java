package io.basalt.store.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.commitlog.RecordCheck;

class CommitLogScannerTest {
    private static final int FILE_SIZE = 64 * 1024;

    @TempDir
    Path dir;

    private TestLog logWith(int records) throws Exception {
        TestLog log = new TestLog(dir.resolve("commitlog"), FILE_SIZE);
        for (int i = 0; i < records; i++) {
            log.append(TestLog.message(i, 100 + (i * 37) % 3000), 10_000 + i);
        }
        return log;
    }

    private CommitLogScanner.ScanResult scan(TestLog log, long from, List<RecordCheck> seen) throws Exception {
        return new CommitLogScanner(true, 1 << 20, 0).scan(log.segments(), from, seen::add);
    }

    @Test
    void cleanLogScansAcrossEndOfFileMarkersToTheLastRecord() throws Exception {
        TestLog log = logWith(200);
        assertTrue(log.segments().size() >= 4, "records span several files");
        List<RecordCheck> seen = new ArrayList<>();
        CommitLogScanner.ScanResult r = scan(log, 0, seen);
        assertEquals(log.writeOffset(), r.endOffset());
        assertEquals(200, r.recordsScanned());
        assertEquals(0, r.bytesDropped());
        for (int i = 0; i < 200; i++) {
            assertEquals(log.recordOffsets.get(i), seen.get(i).physicalOffset());
            assertEquals(i, seen.get(i).queueOffset());
        }
    }

    @Test
    void scanFromTheMiddleSeesOnlyLaterRecords() throws Exception {
        TestLog log = logWith(100);
        List<RecordCheck> seen = new ArrayList<>();
        CommitLogScanner.ScanResult r = scan(log, log.recordOffsets.get(60), seen);
        assertEquals(log.writeOffset(), r.endOffset());
        assertEquals(40, seen.size());
    }

    @Test
    void recordCutMidWayEndsTheLogAtItsStart() throws Exception {
        TestLog log = logWith(50);
        long cut = log.recordOffsets.get(30) + log.recordLengths.get(30) / 2;
        log.zeroFrom(cut);
        CommitLogScanner.ScanResult r = scan(log, 0, new ArrayList<>());
        assertEquals(log.recordOffsets.get(30), r.endOffset());
        assertEquals(30, r.recordsScanned());
        assertTrue(r.bytesDropped() > 0, "the later files and the torn half are dropped");
    }

    @Test
    void garbageAfterTheLastRecordIsNotARecord() throws Exception {
        TestLog log = logWith(20);
        long end = log.writeOffset();
        log.garbage(end, 3000, 7);
        CommitLogScanner.ScanResult r = scan(log, 0, new ArrayList<>());
        assertEquals(end, r.endOffset());
        assertEquals(20, r.recordsScanned());
        assertTrue(r.bytesDropped() >= 2990 && r.bytesDropped() <= 3000, "dropped " + r.bytesDropped());
    }

    @Test
    void flippedBodyByteFailsTheCrcAndEndsTheLog() throws Exception {
        TestLog log = logWith(20);
        long victim = log.recordOffsets.get(12);
        log.garbage(victim + log.recordLengths.get(12) - 60, 1, 3);
        CommitLogScanner.ScanResult r = scan(log, 0, new ArrayList<>());
        assertTrue(r.endOffset() <= victim + log.recordLengths.get(12));
        assertTrue(r.recordsScanned() <= 13);
    }

    @Test
    void recordTornInItsPropertiesIsCaughtByTheRecordCrc() throws Exception {
        TestLog log = logWith(20);
        long victimEnd = log.recordOffsets.get(9) + log.recordLengths.get(9);
        log.fill(victimEnd - 7, 7, (byte) 0);      // the tail of the CRC property never reached the disk
        CommitLogScanner.ScanResult r = scan(log, 0, new ArrayList<>());
        assertEquals(log.recordOffsets.get(9), r.endOffset());
        assertTrue(r.stopReason().contains("record CRC"), r.stopReason());

        // Without the requirement (a log RocketMQ wrote) the same record is taken: only the body CRC counts.
        CommitLogScanner.ScanResult legacy = new CommitLogScanner(true, 0, Long.MAX_VALUE).scan(log.segments(), 0,
            c -> { });
        assertTrue(legacy.endOffset() > victimEnd);
    }

    @Test
    void garbageInTheTopicIsCaughtByTheRecordCrc() throws Exception {
        TestLog log = logWith(20);
        long victim = log.recordOffsets.get(4);
        int topicAt = log.recordLengths.get(4) - 2 - TestLog.message(4, 0).propertiesLength() - 2;
        log.fill(victim + topicAt, 1, (byte) 'Z');  // "T1" becomes "TZ": same lengths, same body
        for (long requireFrom : new long[] {0, Long.MAX_VALUE}) {
            CommitLogScanner.ScanResult r = new CommitLogScanner(true, 0, requireFrom).scan(log.segments(), 0,
                c -> { });
            assertEquals(victim, r.endOffset(), "the record CRC is verified wherever it is present");
        }
    }

    @Test
    void tornEndOfFileMarkerEndsTheLogInThatFile() throws Exception {
        TestLog log = logWith(200);
        CommitLogScanner.Segment first = log.segments().get(0);
        long markerAt = log.recordOffsets.get(log.recordsBefore(FILE_SIZE) - 1)
            + log.recordLengths.get(log.recordsBefore(FILE_SIZE) - 1);
        log.fill(markerAt, 4, (byte) 0);   // the marker's length is lost
        CommitLogScanner.ScanResult r = scan(log, first.fileFromOffset(), new ArrayList<>());
        assertEquals(markerAt, r.endOffset());
    }

    @Test
    void recordWhosePhysicalOffsetFieldLiesIsRejected() throws Exception {
        TestLog log = logWith(10);
        // Copy record 3 over record 5's place: valid bytes, wrong position.
        byte[] all = java.nio.file.Files.readAllBytes(log.file(0));
        java.nio.ByteBuffer rec = java.nio.ByteBuffer.wrap(all, log.recordOffsets.get(3).intValue(), log.recordLengths.get(3));
        try (var ch = java.nio.channels.FileChannel.open(log.file(0), java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(rec, log.recordOffsets.get(5));
        }
        CommitLogScanner.ScanResult r = scan(log, 0, new ArrayList<>());
        assertEquals(log.recordOffsets.get(5), r.endOffset());
        assertTrue(r.stopReason().contains("physical offset"), r.stopReason());
    }

    @Test
    void recordLargerThanTheScanWindowIsRead() throws Exception {
        TestLog log = new TestLog(dir.resolve("big"), 16 * 1024 * 1024);
        log.append(TestLog.message(1, 100), 1);
        log.append(TestLog.message(2, 5 * 1024 * 1024), 2);
        log.append(TestLog.message(3, 100), 3);
        CommitLogScanner.ScanResult r = new CommitLogScanner(true, 0, 0).scan(log.segments(), 0, c -> { });
        assertEquals(3, r.recordsScanned());
        assertEquals(log.writeOffset(), r.endOffset());
    }
}
