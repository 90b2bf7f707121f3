package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonConfigFileTest {
    @TempDir
    Path dir;

    private static ObjectNode content(int version) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("version", version);
        return n;
    }

    @Test
    void missingFileIsNoDataYet() throws IOException {
        assertTrue(new JsonConfigFile(dir.resolve("topics.json")).load().isEmpty());
    }

    @Test
    void storeReplacesTheFileAndKeepsThePreviousContentAsBackup() throws IOException {
        JsonConfigFile f = new JsonConfigFile(dir.resolve("topics.json"));
        f.store(content(1));
        f.store(content(2));
        assertEquals(2, f.load().orElseThrow().path("version").asInt());
        assertEquals(1, new JsonConfigFile(dir.resolve("topics.json.bak")).load().orElseThrow().path("version").asInt());
        assertFalse(Files.exists(dir.resolve("topics.json.tmp")), "no temp file left behind");
    }

    @Test
    void corruptFileFallsBackToTheBackup() throws IOException {
        JsonConfigFile f = new JsonConfigFile(dir.resolve("consumerOffset.json"));
        f.store(content(1));
        f.store(content(2));
        Files.writeString(dir.resolve("consumerOffset.json"), "{\"offsetTable\":{\"T@g\":{0:1");   // torn write
        assertEquals(1, f.load().orElseThrow().path("version").asInt());
    }

    @Test
    void corruptBackupIsNeverMadeFromACorruptFile() throws IOException {
        JsonConfigFile f = new JsonConfigFile(dir.resolve("topics.json"));
        f.store(content(1));
        f.store(content(2));
        Files.writeString(dir.resolve("topics.json"), "garbage");
        f.store(content(3));
        assertEquals(3, f.load().orElseThrow().path("version").asInt());
        assertEquals(1, new JsonConfigFile(dir.resolve("topics.json.bak")).load().orElseThrow().path("version").asInt());
    }

    @Test
    void corruptFileWithoutAValidBackupRefusesToLoad() throws IOException {
        Files.writeString(dir.resolve("topics.json"), "{not json");
        IOException e = assertThrows(IOException.class, () -> new JsonConfigFile(dir.resolve("topics.json")).load());
        assertTrue(e.getMessage().contains("topics.json is corrupt"), e.getMessage());
    }

    @Test
    void readsRocketMqsUnquotedNumericKeys() throws IOException {
        Files.writeString(dir.resolve("consumerOffset.json"),
            "{\n\t\"offsetTable\":{\n\t\t\"TopicTest@cg\":{0:250,1:249,2:250,3:250}\n\t}\n}");
        assertEquals(249, new JsonConfigFile(dir.resolve("consumerOffset.json")).load().orElseThrow()
            .path("offsetTable").path("TopicTest@cg").path("1").asLong());
    }
}
