package io.basalt.broker.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import com.alibaba.fastjson.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.protocol.DataVersion;

/**
 * config/delayOffset.json in RocketMQ's layout: fastjson's pretty print with unquoted level keys (compared with
 * fastjson itself), quoted keys read too, the .bak taken when the file is corrupt, and start-up stopped when both are.
 */
class DelayOffsetFileTest {
    @TempDir
    Path dir;

    /** RocketMQ's DelayOffsetSerializeWrapper and DataVersion, as fastjson serialises them. */
    public static final class Wrapper {
        private ConcurrentMap<Integer, Long> offsetTable = new ConcurrentHashMap<>(32);
        private Version dataVersion = new Version();

        public ConcurrentMap<Integer, Long> getOffsetTable() {
            return offsetTable;
        }

        public Version getDataVersion() {
            return dataVersion;
        }
    }

    public static final class Version {
        public long getCounter() {
            return 3;
        }

        public long getStateVersion() {
            return 0;
        }

        public long getTimestamp() {
            return 1700000000000L;
        }
    }

    private static DelayOffsetTable table(Map<Integer, Long> offsets) {
        DelayOffsetTable t = new DelayOffsetTable(1_000_000, new DataVersion(0, 1700000000000L, 3));
        offsets.forEach((level, offset) -> t.update(level, offset, 0));
        return t;
    }

    @Test
    void theFileIsWhatFastjsonWritesAndReadsBack() throws IOException {
        Wrapper rocketMq = new Wrapper();
        Map<Integer, Long> offsets = new TreeMap<>(Map.of(1, 0L, 3, 15L, 2, 7L));
        rocketMq.offsetTable.putAll(offsets);
        DelayOffsetTable table = table(offsets);

        assertEquals(JSON.toJSONString(rocketMq, true), table.toPrettyJson());
        assertEquals(JSON.toJSONString(rocketMq, false), table.toCompactJson());
        assertEquals(JSON.toJSONString(new Wrapper(), true), table(Map.of()).toPrettyJson(), "an empty table");

        DelayOffsetFile file = new DelayOffsetFile(dir);
        file.store(table);
        assertEquals(JSON.toJSONString(rocketMq, true), Files.readString(dir.resolve("delayOffset.json")));
        DelayOffsetTable loaded = file.load(200).orElseThrow();
        assertEquals(offsets, loaded.snapshot());
        assertEquals(new DataVersion(0, 1700000000000L, 3), loaded.dataVersion());
    }

    @Test
    void quotedKeysAndAFileWithoutDataVersionAreRead() throws IOException {
        Files.writeString(dir.resolve("delayOffset.json"), "{\"offsetTable\":{\"1\":4,\"18\":2}}");
        assertEquals(Map.of(1, 4L, 18, 2L), new DelayOffsetFile(dir).load(200).orElseThrow().snapshot());
    }

    @Test
    void aCorruptFileFallsBackToItsBackupAndBothCorruptStopStartUp() throws IOException {
        DelayOffsetFile file = new DelayOffsetFile(dir);
        file.store(table(Map.of(1, 5L)));
        file.store(table(Map.of(1, 6L)));   // the first content is now the .bak
        Files.writeString(dir.resolve("delayOffset.json"), "{\"offsetTable\":{1:");
        assertEquals(Map.of(1, 5L), file.load(200).orElseThrow().snapshot());

        Files.writeString(dir.resolve("delayOffset.json.bak"), "{\"offsetTable\":{0:-3}}");
        IOException e = assertThrows(IOException.class, () -> file.load(200));
        assertTrue(e.getMessage().contains("delayOffset.json"), e.getMessage());
    }

    @Test
    void theDataVersionMovesEveryStepUpdates() {
        DelayOffsetTable t = new DelayOffsetTable(2, new DataVersion(0, 0, 0));
        t.update(1, 1, 10);
        assertEquals(0, t.dataVersion().counter());
        t.update(1, 2, 20);
        assertEquals(new DataVersion(0, 20, 1), t.dataVersion());
        t.update(1, 2, 30);
        assertEquals(1, t.dataVersion().counter(), "an unchanged offset is no update");
    }
}
