package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.config.BrokerConfiguration;

class BrokerControllerTest {
    @TempDir
    Path dir;

    @Test
    void freePortsArePickedBeforeTheBrokerIsBuiltAndNothingElseChanges() throws Exception {
        BrokerConfiguration asked = BrokerConfiguration.of(Map.of("listenPort", "0", "metricsPort", "0",
            "brokerName", "broker-ports", "storePathRootDir", dir.toString(), "bindAddress", "127.0.0.1"));
        BrokerConfiguration concrete = BrokerController.withConcretePorts(asked);

        int listen = concrete.broker().listenPort();
        int ha = concrete.ha().haListenPort();
        int grpc = concrete.broker().grpcServerPort();
        assertNotEquals(0, listen, "a store host or route address with port 0 is unreachable");
        assertNotEquals(0, ha);
        assertNotEquals(listen, ha);
        // a broker on a free remoting port gets a free gRPC port too, so brokers of one host never share 8081
        assertNotEquals(0, grpc);
        assertNotEquals(8081, grpc);
        assertNotEquals(listen, grpc);
        assertNotEquals(ha, grpc);
        assertEquals(0, concrete.broker().metricsPort(), "metricsPort 0 means disabled, not free");
        Map<String, String> others = new HashMap<>(concrete.asProperties());
        Map<String, String> before = new HashMap<>(asked.asProperties());
        for (String port : new String[] {"listenPort", "haListenPort", "grpcServerPort"}) {
            others.remove(port);
            before.remove(port);
        }
        assertEquals(before, others);
    }

    @Test
    void configuredPortsAreKeptAsTheyAre() throws Exception {
        BrokerConfiguration asked = BrokerConfiguration.of(Map.of("listenPort", "20931", "metricsPort", "0",
            "storePathRootDir", dir.toString()));
        assertSame(asked, BrokerController.withConcretePorts(asked));
    }

    @Test
    void theFrameLimitLeavesRoomForTheLargestAcceptedMessage() {
        assertEquals(16 << 20, BrokerController.maxFrameLength(16 << 20, 4 << 20), "RocketMQ's 16 MiB for 4 MiB messages");
        assertEquals((64 << 20) + (1 << 20), BrokerController.maxFrameLength(16 << 20, 64 << 20));
    }
}
