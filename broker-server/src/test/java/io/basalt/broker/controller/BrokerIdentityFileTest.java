package io.basalt.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.controller.BrokerIdentityFile.Identity;
import io.basalt.broker.controller.BrokerIdentityFile.PendingIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RocketMQ 5.2.0's brokerIdentity and brokerIdentity-temp files. */
class BrokerIdentityFileTest {
    @TempDir
    Path dir;

    @Test
    void writesRocketMqText() throws Exception {
        BrokerIdentityFile file = new BrokerIdentityFile(BrokerIdentityFile.defaultPath(dir));
        assertEquals(dir.resolve("brokerIdentity"), file.path());
        assertEquals(dir.resolve("brokerIdentity-temp"), file.tempPath());
        file.writeTemp(new PendingIdentity("DefaultCluster", "broker-a", 2, "10.0.0.1:30911;1700000000000"));
        assertEquals("DefaultCluster#broker-a#2#10.0.0.1:30911;1700000000000", Files.readString(file.tempPath()));
        file.write(new Identity("DefaultCluster", "broker-a", 2));
        assertEquals("DefaultCluster#broker-a#2", Files.readString(file.path()));
        file.deleteTemp();
        assertFalse(Files.exists(file.tempPath()));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no .tmp file left behind");
        }
    }

    @Test
    void readsWhatRocketMqWrote() throws Exception {
        Files.writeString(dir.resolve("brokerIdentity"), "DefaultCluster#broker-a#1");
        Files.writeString(dir.resolve("brokerIdentity-temp"), "DefaultCluster#broker-a#3#10.0.0.1:30911;17\n");
        BrokerIdentityFile file = new BrokerIdentityFile(dir.resolve("brokerIdentity"));
        assertEquals(Optional.of(new Identity("DefaultCluster", "broker-a", 1)), file.read());
        assertEquals(Optional.of(new PendingIdentity("DefaultCluster", "broker-a", 3, "10.0.0.1:30911;17")),
            file.readTemp());
        assertTrue(file.read().orElseThrow().belongsTo("DefaultCluster", "broker-a"));
        assertFalse(file.read().orElseThrow().belongsTo("DefaultCluster", "broker-b"));
    }

    @Test
    void absentFilesAreEmptyAndMalformedOnesAreErrors() throws Exception {
        BrokerIdentityFile file = new BrokerIdentityFile(dir.resolve("brokerIdentity"));
        assertEquals(Optional.empty(), file.read());
        assertEquals(Optional.empty(), file.readTemp());
        Files.writeString(file.path(), "DefaultCluster#broker-a");
        IOException e = assertThrows(IOException.class, file::read);
        assertTrue(e.getMessage().contains(file.path().toString()), e.getMessage());
        Files.writeString(file.path(), "DefaultCluster#broker-a#one");
        assertThrows(IOException.class, file::read);
    }

    @Test
    void namesWithTheSeparatorAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Identity("Default#Cluster", "broker-a", 1));
    }
}
