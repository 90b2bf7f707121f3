package io.basalt.it.mixedha;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.RocketMqBrokerProcess;
import io.basalt.it.RocketMqNameServer;

/**
 * A real RocketMQ 5.2.0 slave follows a Basalt SYNC_MASTER in RocketMQ's classic HA protocol. The slave has no
 * haMasterAddress: it takes the HA address Basalt registered with the NameServer (haServerAddr). Every send the
 * official producer got SEND_OK for is in the RocketMQ slave's CommitLog, byte for byte the master's, and a
 * RocketMQ broker opening the slave's store afterwards serves every one of them to the official consumer.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class RocketMqSlaveOfBasaltTest {
    private static final String TOPIC = "MixedToRocketMq";

    @TempDir
    Path dir;

    @Test
    void acknowledgedSendsAreInTheRocketMqSlaveIdentical() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir)) {
            String namesrv = nameServer.address();
            List<MixedReplicas.Acked> acked;
            try (BrokerProcess master = BrokerProcess.create(dir.resolve("basalt-master"), Map.of(
                     "brokerRole", "SYNC_MASTER", "namesrvAddr", namesrv, "registerNameServerPeriod", "10000"));
                 RocketMqBrokerProcess slave = RocketMqBrokerProcess.slave(dir.resolve("rocketmq-slave"), namesrv, 1,
                     Map.of("registerNameServerPeriod", "10000"))) {
                master.start();
                MixedReplicas.createTopic(namesrv, master.address(), TOPIC);
                slave.start();
                DefaultMQProducer producer = MixedReplicas.producer(namesrv);
                try {
                    MixedReplicas.awaitSlaveAttached(producer, TOPIC);
                    acked = MixedReplicas.send(producer, TOPIC, 300);
                } finally {
                    producer.shutdown();
                }
                assertEquals(300, acked.size(), "with the RocketMQ slave attached every send is acknowledged");
                MixedReplicas.assertSameCommitLog(master.storeDir(), slave.storeDir(), acked);
                assertEquals("CLASSIC", MixedReplicas.runtimeInfo(namesrv, master.address()).get("haSlave0Protocol"));

                master.stopGracefully();
                slave.stopGracefully();
            }
            // RocketMQ's own store code reads the replicated store: a RocketMQ broker opens it as a master
            try (RocketMqBrokerProcess reader = RocketMqBrokerProcess.create(dir.resolve("rocketmq-reader"),
                     dir.resolve("rocketmq-slave/store"), namesrv, Map.of("brokerName", "broker-b",
                         "registerNameServerPeriod", "10000"))) {
                reader.start();
                MixedReplicas.createTopic(namesrv, reader.address(), TOPIC);
                Map<String, String> read = MixedReplicas.readAll(namesrv, TOPIC, acked);
                MixedReplicas.assertAllRead(acked, read);
            }
        }
    }
}
