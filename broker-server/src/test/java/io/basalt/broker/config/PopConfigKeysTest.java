package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * POP's keys: reviveQueueNum and reviveInterval with RocketMQ's defaults; the in-memory checkpoint buffer and
 * batched ACK records, which Basalt does not have, refuse the start by name.
 */
class PopConfigKeysTest {
    @TempDir
    Path dir;

    @Test
    void reviveKeysHaveRocketMqsDefaults() throws Exception {
        Path file = Files.writeString(dir.resolve("broker.conf"), "brokerName=b\n");
        BrokerConfiguration config = BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir));
        assertEquals(8, config.broker().reviveQueueNum());
        assertEquals(1000, config.broker().reviveInterval());
        BrokerConfiguration set = BrokerConfiguration.load(file, Map.of("reviveQueueNum", "2", "reviveInterval", "200"),
            TestEnvironment.in(dir));
        assertEquals(2, set.broker().reviveQueueNum());
        assertEquals(200, set.broker().reviveInterval());
    }

    @Test
    void popBufferMergeAndBatchAckRefuseTheStart() throws Exception {
        Path file = Files.writeString(dir.resolve("broker.conf"), "brokerName=b\nenablePopBufferMerge=true\n"
            + "enablePopBatchAck=true\n");
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir)));
        assertEquals(2, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("enablePopBufferMerge=true")), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("enablePopBatchAck=true")), e.problems().toString());
        Path honoured = Files.writeString(dir.resolve("ok.conf"), "brokerName=b\nenablePopBufferMerge=false\n");
        BrokerConfiguration.load(honoured, Map.of(), TestEnvironment.in(dir));
    }
}
