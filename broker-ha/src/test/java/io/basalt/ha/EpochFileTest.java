package io.basalt.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

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
