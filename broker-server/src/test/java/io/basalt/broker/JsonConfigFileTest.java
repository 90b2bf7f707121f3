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
    /** consumerOffset.json on a really full disk (a 1 MiB tmpfs; root only): the failed store keeps the good copy. */
    @Test
    void aStoreOnAFullDiskFailsAndLosesNeitherTheFileNorItsBackup() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mount needs root");
        Path mount = Files.createDirectory(dir.resolve("small"));
        org.junit.jupiter.api.Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.toString()) == 0);
        try {
            JsonConfigFile f = new JsonConfigFile(mount.resolve("consumerOffset.json"));
            f.store(content(1));
            f.store(content(2));
            try (java.io.OutputStream out = Files.newOutputStream(mount.resolve("placeholder"))) {
                byte[] chunk = new byte[4096];
                while (true) {
                    out.write(chunk);
                }
            } catch (IOException full) {
                assertTrue(String.valueOf(full.getMessage()).contains("No space left"), full.toString());
            }
            ObjectNode big = content(3);
            big.put("padding", "x".repeat(64 * 1024));
            assertThrows(IOException.class, () -> f.store(big));
            assertEquals(2, f.load().orElseThrow().path("version").asInt(), "the good copy survives");
            assertEquals(1, new JsonConfigFile(mount.resolve("consumerOffset.json.bak")).load().orElseThrow()
                .path("version").asInt(), "so does its backup");

            Files.delete(mount.resolve("placeholder"));
            f.store(big);
            assertEquals(3, f.load().orElseThrow().path("version").asInt(), "writes resume once there is room");
        } finally {
            assertEquals(0, run("umount", mount.toString()));
        }
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS));
        return p.exitValue();
    }
}
