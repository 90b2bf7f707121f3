package io.basalt.broker.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsumerOffsetManagerTest {
    @TempDir
    Path dir;

    @Test
    void committedOffsetsSurviveAPersistAndReopen() throws IOException {
        ConsumerOffsetManager m = ConsumerOffsetManager.open(dir);
        m.commitOffset("127.0.0.1", "cg", "T", 0, 10);
        m.commitOffset("127.0.0.1", "cg", "T", 3, 7);
        m.commitOffset("127.0.0.1", "other", "T", 0, 1);
        m.persist();
        ConsumerOffsetManager reopened = ConsumerOffsetManager.open(dir);
        assertEquals(10, reopened.queryOffset("cg", "T", 0));
        assertEquals(7, reopened.queryOffset("cg", "T", 3));
        assertEquals(-1, reopened.queryOffset("cg", "T", 1));
        assertEquals(Map.of(0, 10L, 3, 7L), reopened.queryOffsets("cg", "T"));
    }

    @Test
    void readsAConsumerOffsetJsonWrittenByRocketMq() throws IOException {
        Files.writeString(dir.resolve("consumerOffset.json"), "{\n\t\"offsetTable\":{\n"
            + "\t\t\"%RETRY%cg@cg\":{0:0},\n\t\t\"TopicTest@cg\":{0:250,1:250,2:250,3:251}\n\t}\n}");
        ConsumerOffsetManager m = ConsumerOffsetManager.open(dir);
        assertEquals(251, m.queryOffset("cg", "TopicTest", 3));
        assertEquals(0, m.queryOffset("cg", "%RETRY%cg", 0));
    }

    @Test
    void aNegativeOrNonNumericOffsetWithoutABackupStopsTheOpenNamingTheEntry() throws IOException {
        for (String bad : new String[] {"-5", "\"abc\"", "12.5", "null"}) {
            Files.writeString(dir.resolve("consumerOffset.json"), "{\"offsetTable\":{\"T@cg\":{0:250,1:" + bad + "}}}");
            IOException e = assertThrows(IOException.class, () -> ConsumerOffsetManager.open(dir), bad);
            assertTrue(e.getMessage().contains("offset of T@cg queue 1 is"), e.getMessage());
        }
        Files.writeString(dir.resolve("consumerOffset.json"), "{\"offsetTable\":{\"T@cg\":{\"-1\":250}}}");
        assertThrows(IOException.class, () -> ConsumerOffsetManager.open(dir), "a negative queue id");
    }

    @Test
    void aFileWithABadOffsetFallsBackToItsBackupAndTheBackupIsNotOverwrittenByIt() throws IOException {
        ConsumerOffsetManager m = ConsumerOffsetManager.open(dir);
        m.commitOffset("127.0.0.1", "cg", "T", 0, 250);
        m.persist();
        m.persist(); // the first valid content becomes the backup
        Files.writeString(dir.resolve("consumerOffset.json"), "{\"offsetTable\":{\"T@cg\":{0:-100}}}");

        ConsumerOffsetManager reopened = ConsumerOffsetManager.open(dir);
        assertEquals(250, reopened.queryOffset("cg", "T", 0), "the backup's offset, not 0 and not -100");
        reopened.persist();
        assertEquals(250, ConsumerOffsetManager.open(dir).queryOffset("cg", "T", 0));
        assertTrue(!Files.readString(dir.resolve("consumerOffset.json.bak")).contains("-100"),
            "the bad content was not kept as the backup");
    }
}
