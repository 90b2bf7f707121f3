package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.config.ConfigKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RocketMqKeyNamesTest {

    @Test
    void holdsKnownNamesOfEachRocketMqConfigClass() {
        for (String name : List.of(
            "brokerClusterName", "brokerName", "brokerId", "brokerIP1", "brokerIP2", "enablePropertyFilter", "aclEnable",
            "autoCreateTopicEnable", "namesrvAddr", "rocketmqHome", "metricsPromExporterPort",
            "brokerRole", "flushDiskType", "deleteWhen", "fileReservedTime", "storePathRootDir", "storePathCommitLog",
            "transientStorePoolEnable", "haListenPort", "haMasterAddress", "timerWheelEnable", "enableDLegerCommitLog",
            "listenPort", "bindAddress", "serverWorkerThreads", "serverChannelMaxIdleTimeSeconds",
            "clientWorkerThreads", "connectTimeoutMillis",
            "rmqAddressServerDomain")) {
            assertTrue(RocketMqKeyNames.contains(name), name);
        }
        assertTrue(RocketMqKeyNames.all().size() > 350, "the full 5.2.0 list: " + RocketMqKeyNames.all().size());
    }

    @Test
    void basaltUsesRocketMqNamesExceptForItsOwnKeys() {
        Set<String> basaltOnly = Set.of("metricsPort", "logsDir", "pidFile", "haReconnectInterval",
            "autoCreateTopicPerClientPerSecond",
            "remotingUnwritableCloseMillis", "remotingPartialFrameBudgetBytes", "remotingFrameCompleteTimeoutMillis",
            "recoverySkipCorruptRecords", "maxOpenConsumeQueueFiles", "checkCrcOnRead", "timerStopDequeue",
            "metricsBindAddress", "metricsAuthToken", "haAuthSecret", "haTlsEnable", "grpcAdvertisedAddress");
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            assertEquals(!basaltOnly.contains(key.name()), RocketMqKeyNames.contains(key.name()), key.name());
            assertEquals(basaltOnly.contains(key.name()), key.description().startsWith("Basalt: "), key.name());
        }
    }

    @Test
    void resourceHeaderNamesItsSource() throws IOException {
        try (InputStream in = RocketMqKeyNames.class.getResourceAsStream(RocketMqKeyNames.RESOURCE)) {
            String header = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
            assertTrue(header.startsWith("# Property names Apache RocketMQ 5.2.0"), header);
        }
    }
}
