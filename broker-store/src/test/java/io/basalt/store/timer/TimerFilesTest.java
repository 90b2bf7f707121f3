package io.basalt.store.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The timer files byte by byte, as RocketMQ 5.2.0 lays them out. */
class TimerFilesTest {
    @TempDir
    Path root;

    @Test
    void aWheelSlotSitsAtTimeOverPrecisionModuloTheSlotCount() throws IOException {
        Path file = root.resolve("timerwheel");
        try (TimerWheel wheel = TimerWheel.open(file, 1000)) {
            assertEquals(38_707_200L, Files.size(file));
            assertEquals(512_004, TimerWheel.slotIndex(1_700_000_004_000L, 1000));
            assertEquals(16_384_128L, TimerWheel.slotOffset(1_700_000_004_000L, 1000));
            wheel.putSlot(1_700_000_004_000L, 104, 156, 2, 0);
            wheel.flush();
            assertEquals(new TimerWheel.Slot(1_700_000_004_000L, 104, 156, 2, 0), wheel.slot(1_700_000_004_000L));
            assertTrue(wheel.slot(1_700_000_004_000L + 1_209_600_000L).isEmpty(), "the same index 14 days later is another time");
        }
        ByteBuffer slot = ByteBuffer.wrap(readAt(file, 16_384_128L, 32));
        assertEquals(1_700_000_004L, slot.getLong(0), "slot time in precision units");
        assertEquals(104, slot.getLong(8), "firstPos");
        assertEquals(156, slot.getLong(16), "lastPos");
        assertEquals(2, slot.getInt(24), "num");
        assertEquals(0, slot.getInt(28), "magic");
    }

    @Test
    void aWheelOfAnotherLengthIsRefused() throws IOException {
        Path file = root.resolve("timerwheel");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(1024);
        }
        IOException e = assertThrows(IOException.class, () -> TimerWheel.open(file, 1000));
        assertTrue(e.getMessage().startsWith("Timer wheel length:1024 != expected:38707200"), e.getMessage());
    }

    @Test
    void timerLogUnitsAre52BytesAndAFullFileEndsWithA16ByteBlank() throws IOException {
        int fileSize = 52 * 2 + 16 + 20;   // two units fit; 36 bytes remain, too few for a unit and a blank
        TimerLog log = new TimerLog(root.resolve("timerlog"), fileSize);
        log.load();
        try {
            assertEquals(0, log.append(-1, TimerConstants.MAGIC_DEFAULT, 1_700_000_000_000L, 4000, 1234, 200, "T".hashCode()));
            assertEquals(52, log.append(0, TimerConstants.MAGIC_DEFAULT | TimerConstants.MAGIC_DELETE, 1_700_000_000_000L,
                4000, 1434, 210, "T".hashCode()));
            assertEquals(fileSize, log.append(52, TimerConstants.MAGIC_ROLL | 1, 1_700_000_001_000L, 3000, 1644, 220, 7),
                "the third unit starts the next file");
            assertEquals(new TimerLog.Unit(52, 0, 5, 1_700_000_000_000L, 4000, 1434, 210, "T".hashCode()), log.read(52));
            log.flush();
        } finally {
            log.close();
        }
        Path first = root.resolve("timerlog").resolve("00000000000000000000");
        Path second = root.resolve("timerlog").resolve(String.format("%020d", fileSize));
        assertTrue(Files.exists(second));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(first));
        assertEquals(52, b.getInt(52), "size");
        assertEquals(0, b.getLong(56), "prevPos");
        assertEquals(5, b.getInt(64), "magic");
        assertEquals(1_700_000_000_000L, b.getLong(68), "write time");
        assertEquals(4000, b.getInt(76), "slot time − write time");
        assertEquals(1434, b.getLong(80), "CommitLog offset");
        assertEquals(210, b.getInt(88), "record size");
        assertEquals("T".hashCode(), b.getInt(92), "REAL_TOPIC hash");
        assertEquals(0, b.getLong(96), "reserved");
        assertEquals(-1, b.getLong(4), "the first unit of a slot has prevPos -1");
        assertEquals(36, b.getInt(104), "blank: the bytes left");
        assertEquals(0, b.getLong(108));
        assertEquals(0xCBD43194, b.getInt(116), "blank magic");
        assertEquals(0xCBD43194, TimerLog.BLANK_MAGIC);
    }

    @Test
    void aTimerLogScanSkipsBlanksAndStopsAtTheFirstMalformedUnit() throws IOException {
        int fileSize = 52 * 2 + 16 + 20;
        Path dir = root.resolve("timerlog");
        TimerLog log = new TimerLog(dir, fileSize);
        log.load();
        for (int i = 0; i < 4; i++) {
            log.append(i == 0 ? -1 : 0, 1, 1000, 0, i * 100L, 100, 0);
        }
        log.flush();
        log.close();
        // a torn tail: garbage where the fifth unit would be
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(String.format("%020d", fileSize)).toFile(), "rw")) {
            raf.seek(104);
            raf.writeInt(99);
        }
        TimerLog reopened = new TimerLog(dir, fileSize);
        reopened.load();
        try {
            List<Long> seen = new ArrayList<>();
            long end = reopened.scan(0, u -> seen.add(u.commitLogOffset()));
            assertEquals(List.of(0L, 100L, 200L, 300L), seen);
            assertEquals(fileSize + 104, end);
            reopened.resumeAt(end);
            assertNull(reopened.read(fileSize + 104));
            assertEquals(2L * fileSize, reopened.append(fileSize + 52, 1, 1000, 0, 400, 100, 0),
                "appends resume at the cut (where the file then ends with its blank)");
        } finally {
            reopened.close();
        }
    }

    @Test
    void theCheckpointHas56MeaningfulBytesInA4096ByteFileAndBasaltsPrecisionAfterThem() throws IOException {
        Path file = root.resolve("config").resolve("timercheck");
        TimerCheckpoint cp = new TimerCheckpoint(file);
        assertEquals(TimerCheckpoint.Values.NONE, cp.read());
        TimerCheckpoint.Values v = new TimerCheckpoint.Values(1_700_000_004_000L, 520, 10, 10, 0, 1_700_000_000_000L, 3, 1000);
        cp.write(v, 1000);
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(4096, bytes.length);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        assertEquals(1_700_000_004_000L, b.getLong(0));
        assertEquals(520, b.getLong(8));
        assertEquals(10, b.getLong(16));
        assertEquals(10, b.getLong(24));
        assertEquals(0, b.getLong(32));
        assertEquals(1_700_000_000_000L, b.getLong(40));
        assertEquals(3, b.getLong(48));
        assertEquals(TimerCheckpoint.PRECISION_MARKER, b.getInt(56));
        assertEquals(1000, b.getInt(60));
        for (int i = 64; i < 4096; i++) {
            assertEquals(0, bytes[i]);
        }
        assertEquals(v, cp.read());
        assertEquals(56, v.body().length);
        TimerCheckpoint.Values old = TimerCheckpoint.Values.parse(java.util.Arrays.copyOf(v.body(), 32));
        assertEquals(0, old.counter(), "a 32-byte body of an older broker has no dataVersion");
        assertEquals(10, old.masterTimerQueueOffset());
    }

    @Test
    void metricsAreRocketMQsJsonAndLoadBack() throws IOException {
        Path file = root.resolve("config").resolve("timermetrics");
        long[] now = {1_700_000_000_000L};
        TimerMetrics m = new TimerMetrics(file, () -> now[0]);
        m.add("TopicA", 1);
        m.add("TopicA", 1);
        m.add("TopicB", 1);
        m.add("TopicB", -1);
        m.persist();
        String json = Files.readString(file, StandardCharsets.UTF_8);
        assertEquals("{\"dataVersion\":{\"counter\":1,\"stateVersion\":0,\"timestamp\":1700000000000},\"timingCount\":{"
            + "\"TopicA\":{\"count\":2,\"timeStamp\":1700000000000},\"TopicB\":{\"count\":0,\"timeStamp\":1700000000000}}}", json);
        m.persist();
        assertTrue(Files.exists(root.resolve("config").resolve("timermetrics.bak")), "the previous file is kept as .bak");
        TimerMetrics loaded = new TimerMetrics(file, () -> now[0]);
        loaded.load();
        assertEquals(2, loaded.count("TopicA"));
        assertEquals(2, loaded.total());
        assertEquals(m.toJson(), loaded.toJson());
        loaded.addByTopicHash("TopicA".hashCode(), -1);
        assertEquals(1, loaded.count("TopicA"));
    }

    @Test
    void aTimerLogFileWhoseLastUnitIsBelowTheCommitLogStartIsDeletedButNeverTheLastFile() throws IOException {
        int fileSize = 52 * 2 + 16 + 20;
        TimerLog log = new TimerLog(root.resolve("timerlog"), fileSize);
        log.load();
        try {
            for (int i = 0; i < 6; i++) {
                log.append(-1, 1, 1000, 0, i * 1000L, 100, 0);   // two units per file: CommitLog offsets 0,1000 | 2000,3000 | ...
            }
            assertEquals(3, log.fileCount());
            assertEquals(0, log.deleteFilesBelow(1000), "the first file's last unit points at 1000, still there");
            assertEquals(1, log.deleteFilesBelow(1001));
            assertEquals(fileSize, log.minOffset());
            assertEquals(1, log.deleteFilesBelow(1_000_000), "all but the last file");
            assertEquals(1, log.fileCount());
            assertEquals(0, log.deleteFilesBelow(1_000_000));
        } finally {
            log.close();
        }
    }

    private static byte[] readAt(Path file, long position, int length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            byte[] b = new byte[length];
            raf.seek(position);
            raf.readFully(b);
            return b;
        }
    }
}
