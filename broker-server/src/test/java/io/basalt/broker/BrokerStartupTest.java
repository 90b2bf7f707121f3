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
        assertTrue(BrokerStartup.startsABroker(new String[] {"-n", "127.0.0.1:9876", "-c", "conf/broker.conf"}),
            "RocketMQ's style: options without a command start the broker");
        assertTrue(BrokerStartup.startsABroker(new String[0]), "RocketMQ's sh bin/mqbroker");
        assertFalse(BrokerStartup.startsABroker(new String[] {"-c", "conf/broker.conf", "-p"}), "-p prints and exits");
        assertFalse(BrokerStartup.startsABroker(new String[] {"-m"}), "-m prints and exits");
    }

    @Test
    void dashPPrintsEveryKeyAndDashMTheImportantOnesWithoutStarting() throws Exception {
        Path conf = dir.resolve("broker.conf");
        Files.writeString(conf, "storePathRootDir=" + dir.resolve("store") + "\nlogsDir=" + dir.resolve("logs")
            + "\nbrokerName=broker-print\nsendMessageThreadPoolNums=3\nhaAuthSecret=a-secret-of-sixteen+\n");
        String all = printed("-c", conf.toString(), "-n", "127.0.0.1:9876", "-p");
        java.util.Properties allKeys = new java.util.Properties();
        allKeys.load(new java.io.StringReader(all));
        assertEquals("broker-print", allKeys.getProperty("brokerName"));
        assertEquals("127.0.0.1:9876", allKeys.getProperty("namesrvAddr"), "-n applies before the print");
        assertEquals("3", allKeys.getProperty("sendMessageThreadPoolNums"));
        assertEquals("ASYNC_FLUSH", allKeys.getProperty("flushDiskType"), "defaults are printed too");
        assertEquals("<hidden>", allKeys.getProperty("haAuthSecret"), "secrets never printed");
        assertFalse(all.contains("a-secret-of-sixteen+"), all);
        assertEquals(io.basalt.broker.config.BrokerConfiguration.load(conf, Map.of()).asProperties().keySet(),
            allKeys.stringPropertyNames(), "every key of the table");

        String important = printed("-m", "-c", conf.toString());
        java.util.Properties importantKeys = new java.util.Properties();
        importantKeys.load(new java.io.StringReader(important));
        assertEquals("broker-print", importantKeys.getProperty("brokerName"));
        assertEquals("ASYNC_FLUSH", importantKeys.getProperty("flushDiskType"), "an important key at its default");
        assertEquals("3", importantKeys.getProperty("sendMessageThreadPoolNums"), "a key the file sets");
        assertEquals(null, importantKeys.getProperty("maxMessageSize"), "a tuning key at its default is left out");
        assertTrue(importantKeys.size() < allKeys.size() / 4, important);
        assertFalse(Files.exists(dir.resolve("store")), "printing opens no store");
    }

    private String printed(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BrokerStartup.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void presetLogDirFollowsLogsDirElseTheStoreRoot() throws Exception {
        Path conf = dir.resolve("broker.conf");
        Files.writeString(conf, "storePathRootDir=" + dir.resolve("data/store") + "\n");
        assertEquals(dir.resolve("data/logs"), BrokerStartup.presetLogDir(conf, Map.of()));
        assertEquals(Path.of("/var/log/basalt"), BrokerStartup.presetLogDir(conf, Map.of("logsDir", "/var/log/basalt")));
    }
}
