package io.basalt.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochFileTest {
    @TempDir
    Path dir;

    private static EpochFile.Entry e(long epoch, long start) {
        return new EpochFile.Entry(epoch, start);
    }

    @Test
    void epochsPersistAcrossReopen() throws Exception {
        EpochFile f = EpochFile.open(dir);
        assertEquals(0, f.lastEpoch());
        assertEquals(1, f.startEpoch(0));
        assertEquals(2, f.startEpoch(4096));
        assertEquals(List.of(e(1, 0), e(2, 4096)), EpochFile.open(dir).entries());
    }

    private static String nl() {
        return System.lineSeparator();
    }

    /** RocketMQ's CRC of the entry lines, computed here independently of EpochFile. */
    private static long crc(String... lines) {
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l).append(nl());
        }
        CRC32 c = new CRC32();
        c.update(b.toString().getBytes(StandardCharsets.UTF_8));
        return c.getValue() & 0x7FFFFFFF;
    }

    private String read(String name) throws IOException {
        return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    void theFileIsRocketMqsCheckpointLayout() throws Exception {
        EpochFile f = EpochFile.open(dir);
        f.startEpoch(0);
        f.startEpoch(1048576);
        assertEquals("2" + nl() + crc("1-0", "2-1048576") + nl() + "1-0" + nl() + "2-1048576" + nl(),
            read("epochFileCheckpoint"));
        // the previous list is the backup
        assertEquals("1" + nl() + crc("1-0") + nl() + "1-0" + nl(), read("epochFileCheckpoint.bak"));
        assertThat(dir.resolve("haEpoch")).doesNotExist();
    }

    @Test
    void aCustomPathHoldsTheFileAndItsBackup() throws Exception {
        Path custom = dir.resolve("elsewhere").resolve("epochs");
        EpochFile f = EpochFile.open(dir, custom);
        f.startEpoch(0);
        f.startEpoch(10);
        assertThat(custom).exists();
        assertThat(dir.resolve("elsewhere").resolve("epochs.bak")).exists();
        assertThat(dir.resolve("epochFileCheckpoint")).doesNotExist();
        assertEquals(List.of(e(1, 0), e(2, 10)), EpochFile.open(dir, custom).entries());
    }

    @Test
    void aZeroCrcIsNotChecked() throws Exception {
        Files.writeString(dir.resolve("epochFileCheckpoint"), "2" + nl() + "0" + nl() + "3-0" + nl() + "5-700" + nl());
        assertEquals(List.of(e(3, 0), e(5, 700)), EpochFile.open(dir).entries());
    }

    @Test
    void aBadPrimaryFallsBackToAGoodBackup() throws Exception {
        EpochFile f = EpochFile.open(dir);
        f.startEpoch(0);
        f.startEpoch(500);
        // a flipped digit in an entry: the CRC no longer matches
        Files.writeString(dir.resolve("epochFileCheckpoint"), read("epochFileCheckpoint").replace("2-500", "2-600"));
        assertEquals(List.of(e(1, 0)), EpochFile.open(dir).entries());
        // an absent primary reads the backup too, as RocketMQ does
        Files.delete(dir.resolve("epochFileCheckpoint"));
        assertEquals(List.of(e(1, 0)), EpochFile.open(dir).entries());
    }

    @Test
    void aBadFileWithoutAGoodBackupRefusesToOpen() throws Exception {
        Path file = dir.resolve("epochFileCheckpoint");
        Files.writeString(file, "2" + nl() + "0" + nl() + "1-0" + nl());
        assertThatThrownBy(() -> EpochFile.open(dir)).isInstanceOf(IOException.class)
            .hasMessageContaining(file.toString()).hasMessageContaining(file + ".bak")
            .hasMessageContaining("line 1 says 2 entries, the file has 1");
        Files.writeString(dir.resolve("epochFileCheckpoint.bak"), "1" + nl() + "0" + nl() + "one-0" + nl());
        assertThatThrownBy(() -> EpochFile.open(dir)).isInstanceOf(IOException.class)
            .hasMessageContaining(file.toString()).hasMessageContaining(file + ".bak")
            .hasMessageContaining("expected '<epoch>-<startOffset>', was 'one-0'");
        Files.writeString(file, "1" + nl() + "12345" + nl() + "1-0" + nl());
        assertThatThrownBy(() -> EpochFile.open(dir)).isInstanceOf(IOException.class)
            .hasMessageContaining("CRC32 of the entries is " + crc("1-0") + ", line 2 says 12345");
    }

    @Test
    void anOldHaEpochIsConvertedAtOpen() throws Exception {
        Files.writeString(dir.resolve("haEpoch"), "1 0\n2 4096\n");
        EpochFile f = EpochFile.open(dir);
        assertEquals(List.of(e(1, 0), e(2, 4096)), f.entries());
        assertThat(dir.resolve("haEpoch")).doesNotExist();
        assertEquals("2" + nl() + crc("1-0", "2-4096") + nl() + "1-0" + nl() + "2-4096" + nl(),
            read("epochFileCheckpoint"));
        assertEquals(List.of(e(1, 0), e(2, 4096)), EpochFile.open(dir).entries());
    }

    @Test
    void aHaEpochLeftByAnInterruptedConversionIsRemovedAndAStaleOneRefused() throws Exception {
        EpochFile.open(dir).startEpoch(0);
        Files.writeString(dir.resolve("haEpoch"), "1 0\n");
        assertEquals(List.of(e(1, 0)), EpochFile.open(dir).entries());
        assertThat(dir.resolve("haEpoch")).doesNotExist();
        Files.writeString(dir.resolve("haEpoch"), "1 0\n2 99\n");
        assertThatThrownBy(() -> EpochFile.open(dir)).isInstanceOf(IOException.class)
            .hasMessageContaining("haEpoch").hasMessageContaining("disagree");
    }

    @Test
    void epochsMustFitRocketMqsInt() throws Exception {
        EpochFile f = EpochFile.open(dir);
        assertThatThrownBy(() -> f.replaceWith(List.of(e(1L + Integer.MAX_VALUE, 0))))
            .isInstanceOf(IOException.class).hasMessageContaining("out of range");
        f.replaceWith(List.of(e(Integer.MAX_VALUE, 0)));
        assertThatThrownBy(() -> f.startEpoch(10)).isInstanceOf(IOException.class);
        assertEquals(List.of(e(Integer.MAX_VALUE, 0)), EpochFile.open(dir).entries());
    }

    @Test
    void anEmptyHistoryRemovesBothFiles() throws Exception {
        EpochFile f = EpochFile.open(dir);
        f.startEpoch(0);
        f.startEpoch(5);
        f.replaceWith(List.of());
        assertThat(dir.resolve("epochFileCheckpoint")).doesNotExist();
        assertThat(dir.resolve("epochFileCheckpoint.bak")).doesNotExist();
        assertEquals(List.of(), EpochFile.open(dir).entries());
    }

    @Test
    void lastCommonOffsetIsTheEndOfTheNewestSharedGeneration() {
        // old master ran to 1000 in epoch 1; the promoted slave had 900 and started epoch 2 there
        assertEquals(900, EpochFile.lastCommonOffset(List.of(e(1, 0), e(2, 900)), 1200, List.of(e(1, 0)), 1000));
        // a slave simply behind keeps everything
        assertEquals(500, EpochFile.lastCommonOffset(List.of(e(1, 0), e(2, 900)), 1200, List.of(e(1, 0)), 500));
        // same generation, slave ahead of a restarted master's end: cut to the master's end
        assertEquals(700, EpochFile.lastCommonOffset(List.of(e(1, 0)), 700, List.of(e(1, 0)), 800));
        // nothing shared
        assertEquals(-1, EpochFile.lastCommonOffset(List.of(e(3, 0)), 100, List.of(e(1, 0)), 50));
        // an empty history shares everything up to both ends
        assertEquals(100, EpochFile.lastCommonOffset(List.of(e(1, 0)), 100, List.of(), 300));
    }
}
