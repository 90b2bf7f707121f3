package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerStartupTest {
    @TempDir
    Path dir;

    @Test
    void stopNeverSignalsAProcessThatIsNotABroker() throws Exception {
        Path conf = dir.resolve("broker.conf");
        Path pidFile = dir.resolve("broker.pid");
        Files.writeString(conf, "storePathRootDir=" + dir.resolve("store") + "\npidFile=" + pidFile
            + "\nlogsDir=" + dir.resolve("logs") + "\n");
        // a stale pid file naming a live process that is not a broker: this test JVM
        Files.writeString(pidFile, Long.toString(ProcessHandle.current().pid()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = BrokerStartup.run(new String[] {"stop", "-c", conf.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, status);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("No broker running"), out.toString(StandardCharsets.UTF_8));
        assertFalse(BrokerStartup.isBroker(ProcessHandle.current()));
    }

    @Test
    void onlyAStartThatServesKeepsTheJvmRunning() {
        assertTrue(BrokerStartup.startsABroker(new String[] {"start", "-c", "conf/broker.conf"}));
        assertFalse(BrokerStartup.startsABroker(new String[] {"start", "--help"}), "start --help prints and exits");
        assertFalse(BrokerStartup.startsABroker(new String[] {"--help"}));
        assertFalse(BrokerStartup.startsABroker(new String[] {"stop"}));
        assertFalse(BrokerStartup.startsABroker(new String[] {"strat"}));
    }

    @Test
    void presetLogDirFollowsLogsDirElseTheStoreRoot() throws Exception {
        Path conf = dir.resolve("broker.conf");
        Files.writeString(conf, "storePathRootDir=" + dir.resolve("data/store") + "\n");
        assertEquals(dir.resolve("data/logs"), BrokerStartup.presetLogDir(conf, Map.of()));
        assertEquals(Path.of("/var/log/basalt"), BrokerStartup.presetLogDir(conf, Map.of("logsDir", "/var/log/basalt")));
    }
}
