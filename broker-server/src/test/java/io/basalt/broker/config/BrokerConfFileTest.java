package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.config.ConfigKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped {@code conf/broker.conf}, and a RocketMQ user's file. */
class BrokerConfFileTest {

    /** Tests run in the module directory; the file lives at the top of the project. */
    private static final Path SHIPPED = Path.of("..", "conf", "broker.conf");

    @TempDir
    Path dir;

    @Test
    void shippedFileLoadsWithoutWarnings() throws Exception {
        BrokerConfiguration config = BrokerConfiguration.load(SHIPPED, Map.of(), TestEnvironment.in(dir));
        assertEquals(List.of(), config.warnings());
        assertEquals("broker-a", config.broker().brokerName());
        assertEquals(dir.resolve("work/store"), config.store().rootDir());
    }

    @Test
    void shippedFileDocumentsEveryKeyItSetsWithTheTableDescription() throws IOException {
        List<String> lines = Files.readAllLines(SHIPPED, StandardCharsets.ISO_8859_1);
        int keysSet = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String name = line.substring(0, line.indexOf('=')).strip();
            ConfigKey<?> key = ConfigKeys.TABLE.named(name).orElseThrow(() -> new AssertionError("not a Basalt key: " + name));
            List<String> comments = commentBlockAbove(lines, i);
            assertTrue(comments.contains(key.description()),
                () -> name + " needs the comment '# " + key.description() + "' above it, has " + comments);
            keysSet++;
        }
        assertTrue(keysSet >= 15, "documents the main keys: " + keysSet);
    }

    private static List<String> commentBlockAbove(List<String> lines, int index) {
        List<String> comments = new ArrayList<>();
        for (int i = index - 1; i >= 0 && lines.get(i).startsWith("#"); i--) {
            comments.add(lines.get(i).substring(1).strip());
        }
        return comments;
    }

    @Test
    void rocketMqUsersFileStopsAtSemanticKeysBasaltCannotHonour() throws Exception {
        Path file = rocketMqUsersFile();
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir)));
        assertEquals(2, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().get(0).contains("filterSupportRetry=true is a RocketMQ setting Basalt cannot honour"),
            e.problems().get(0));
        assertTrue(e.problems().get(1).contains("enableSlaveActingMaster=true"), e.problems().get(1));
    }

    @Test
    void rocketMqUsersFileStartsWithAWarningPerKeyBasaltIgnores() throws Exception {
        Path file = rocketMqUsersFile();
        // the two semantic keys the file sets to what Basalt cannot do, overridden to what it does
        BrokerConfiguration config = BrokerConfiguration.load(file,
            Map.of("filterSupportRetry", "false", "enableSlaveActingMaster", "false"), TestEnvironment.in(dir));

        assertEquals("192.168.1.10", config.broker().brokerIP1());
        assertEquals("04", config.store().deleteWhen());
        assertEquals(48, config.store().fileReservedTime());
        assertEquals(2, config.broker().namesrvAddr().size());
        assertEquals(dir.resolve("home/store/commitlog"), config.store().commitLogDir());
        assertFalse(config.store().warmMapedFileEnable(), "the file's explicit false is honoured");
        assertTrue(config.broker().autoCreateSubscriptionGroup());
        assertFalse(config.broker().traceTopicEnable());
        assertTrue(config.broker().enablePropertyFilter(), "SQL92 filtering, as the file asks");
        Set<String> semanticAtHonouredValues = Set.of("filterSupportRetry", "enableSlaveActingMaster");
        assertEquals(io.basalt.store.DelayLevels.defaults(), config.store().delayLevels(), "RocketMQ's levels, as the file says");
        Set<String> tuning = Set.of("useReentrantLockWhenPutMessage", "serverWorkerThreads", "serverSelectorThreads",
            "clientWorkerThreads");
        Set<String> ignored = new java.util.HashSet<>(semanticAtHonouredValues);
        ignored.addAll(tuning);
        assertEquals(ignored, config.ignoredKeys());
        assertEquals(tuning.size(), config.warnings().size(), config.warnings().toString());
        assertTrue(config.warnings().stream().anyMatch(w -> w.contains("serverWorkerThreads is a RocketMQ 5.2.0 broker setting")));
    }

    private Path rocketMqUsersFile() throws IOException {
        Path file = dir.resolve("broker.conf");
        try (InputStream in = getClass().getResourceAsStream("rocketmq-5.2.0-broker.conf")) {
            Files.copy(in, file);
        }
        return file;
    }
}
