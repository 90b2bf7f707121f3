package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Controller mode's keys, RocketMQ's defaults, and RocketMQ's quick-start sample broker-n0.conf. */
class ControllerModeConfigTest {

    /** distribution/conf/controller/quick-start/broker-n0.conf of Apache RocketMQ, unchanged. */
    private static final String SAMPLE = "rocketmq-controller-quick-start-broker-n0.conf";

    @TempDir
    Path dir;

    @Test
    void defaultsAreRocketMqs() throws Exception {
        BrokerConfig broker = BrokerConfiguration.of(Map.of(), TestEnvironment.in(dir)).broker();
        assertFalse(broker.enableControllerMode());
        assertEquals(List.of(), broker.controllerAddr());
        assertEquals(5000, broker.syncBrokerMetadataPeriod());
        assertEquals(5000, broker.checkSyncStateSetPeriod());
        assertEquals(10000, broker.syncControllerMetadataPeriod());
        assertEquals(10000, broker.controllerHeartBeatTimeoutMills());
        assertEquals(1000, broker.brokerHeartbeatInterval());
        assertEquals(1000, broker.sendHeartbeatTimeoutMillis());
        assertEquals(Integer.MAX_VALUE, broker.brokerElectionPriority());
        assertEquals(dir.resolve("home/store/brokerIdentity"), broker.storePathBrokerIdentity());
    }

    /** RocketMQ's quick-start sample (with allAckInSyncStateSet=true) starts Basalt as it is. */
    @Test
    void rocketMqsQuickStartSampleStarts() throws Exception {
        Path file = sample();
        BrokerConfiguration config = BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir));
        BrokerConfig broker = config.broker();
        assertTrue(broker.enableControllerMode());
        assertEquals(-1, broker.brokerId());
        assertTrue(config.ha().allAckInSyncStateSet(), "the sample waits for every SyncStateSet member");
        assertEquals(List.of(HostPort.parse("127.0.0.1:9878")), broker.controllerAddr());
        assertEquals(30911, broker.listenPort());
        assertEquals("broker-a", broker.brokerName());
        assertEquals(Path.of("/tmp/rmqstore/node00/commitlog"), config.store().commitLogDir());
        assertEquals(Path.of("/tmp/rmqstore/node00/brokerIdentity"), broker.storePathBrokerIdentity());
        assertEquals(List.of(), config.warnings(), "brokerRole=SLAVE without haMasterAddress is what controller mode wants");
    }

    @Test
    void unassignedBrokerIdNeedsControllerMode() {
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.of(Map.of("brokerId", "-1", "brokerRole", "SLAVE"), TestEnvironment.in(dir)));
        assertEquals(1, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().get(0).contains("brokerId=-1") && e.problems().get(0).contains("enableControllerMode"),
            e.problems().get(0));
    }

    @Test
    void controllerModeNeedsControllerAddr() {
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.of(Map.of("enableControllerMode", "true", "brokerId", "-1"), TestEnvironment.in(dir)));
        assertEquals(1, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().get(0).contains("needs controllerAddr"), e.problems().get(0));
    }

    @Test
    void controllerModeRefusesDLedgersCommitLog() {
        Map<String, String> properties = new LinkedHashMap<>(controllerMode());
        properties.put("enableDLegerCommitLog", "true");
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.of(properties, TestEnvironment.in(dir)));
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("enableControllerMode=true and enableDLegerCommitLog=true"
            + " exclude each other")), e.problems().toString());
    }

    @Test
    void controllerModeIgnoresBrokerRoleAndHaMasterAddress() throws Exception {
        Map<String, String> properties = new LinkedHashMap<>(controllerMode());
        properties.put("brokerRole", "SLAVE");
        properties.put("brokerId", "0");
        properties.put("haMasterAddress", "10.0.0.1:10912");
        BrokerConfiguration config = BrokerConfiguration.of(properties, TestEnvironment.in(dir));
        assertEquals(1, config.warnings().size(), config.warnings().toString());
        assertTrue(config.warnings().get(0).contains("haMasterAddress is ignored"), config.warnings().get(0));
    }

    private static Map<String, String> controllerMode() {
        return Map.of("enableControllerMode", "true", "controllerAddr", "127.0.0.1:9878;127.0.0.1:9868",
            "brokerId", "-1");
    }

    private Path sample() throws IOException {
        Path file = dir.resolve("broker-n0.conf");
        try (InputStream in = getClass().getResourceAsStream(SAMPLE)) {
            Files.copy(in, file);
        }
        return file;
    }
}
