package io.basalt.store.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.ha.EpochFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.store.ha.autoswitch.EpochFileCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The epoch file moves both ways: RocketMQ 5.2.0's {@link EpochFileCache} reads the {@code epochFileCheckpoint}
 * (and its {@code .bak}) that Basalt's {@link EpochFile} wrote, and Basalt reads the one RocketMQ's class wrote,
 * with the same entries.
 */
class EpochFileCompatibilityTest {
    @TempDir
    Path dir;

    private static List<EpochFile.Entry> asBasalt(List<EpochEntry> entries) {
        List<EpochFile.Entry> out = new ArrayList<>();
        for (EpochEntry e : entries) {
            out.add(new EpochFile.Entry(e.getEpoch(), e.getStartOffset()));
        }
        return out;
    }

    private static EpochFileCache rocketMq(Path file) {
        EpochFileCache cache = new EpochFileCache(file.toString());
        assertTrue(cache.initCacheFromFile(), "RocketMQ could not read " + file);
        return cache;
    }

    @Test
    void rocketMqReadsTheFileBasaltWrote() throws Exception {
        EpochFile basalt = EpochFile.open(dir);
        basalt.startEpoch(0);
        basalt.startEpoch(1_048_576);
        basalt.startEpoch(3_000_000_000L);
        Path file = dir.resolve("epochFileCheckpoint");

        EpochFileCache cache = rocketMq(file);
        assertEquals(basalt.entries(), asBasalt(cache.getAllEntries()));
        assertEquals(3, cache.lastEpoch());
        // RocketMQ closes each entry at the next one's start
        assertEquals(1_048_576, cache.getEntry(1).getEndOffset());
        assertEquals(Long.MAX_VALUE, cache.getEntry(3).getEndOffset());

        // the backup Basalt wrote is the previous list, and RocketMQ falls back to it as Basalt does
        // (a changed offset fails the CRC; RocketMQ only falls back on that kind of damage, not on a non-number)
        Files.writeString(file, Files.readString(file).replace("3-3000000000", "3-3000000001"));
        assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 1_048_576)),
            asBasalt(rocketMq(file).getAllEntries()));
        assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 1_048_576)),
            EpochFile.open(dir).entries());
    }

    @Test
    void basaltReadsTheFileRocketMqWrote() throws Exception {
        Path file = dir.resolve("epochFileCheckpoint");
        EpochFileCache cache = new EpochFileCache(file.toString());
        assertTrue(cache.initCacheFromFile());
        assertTrue(cache.appendEntry(new EpochEntry(1, 0)));
        assertTrue(cache.appendEntry(new EpochEntry(2, 4096)));
        assertTrue(cache.appendEntry(new EpochEntry(7, 5_000_000_000L)));

        EpochFile basalt = EpochFile.open(dir);
        assertEquals(asBasalt(cache.getAllEntries()), basalt.entries());
        assertEquals(7, basalt.lastEpoch());

        // RocketMQ's backup (the list before the last append) is read by Basalt when the primary is bad
        Files.writeString(file, Files.readString(file).replace("7-5000000000", "7-5000000001"));
        assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 4096)), EpochFile.open(dir).entries());
    }
}
