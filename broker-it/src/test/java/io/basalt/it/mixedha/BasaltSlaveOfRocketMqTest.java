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
 * A Basalt slave follows a real RocketMQ 5.2.0 SYNC_MASTER: without haMasterAddress it learns the master's HA
 * address from its NameServer registration, asks the master's remoting port GET_HA_PROTOCOLS (RocketMQ answers
 * REQUEST_CODE_NOT_SUPPORTED) and speaks RocketMQ's classic protocol. Every send the official producer got
 * SEND_OK for is in the Basalt slave's CommitLog, byte for byte the master's, and the Basalt slave serves it
 * (slaveReadEnable) once the RocketMQ master is gone.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class BasaltSlaveOfRocketMqTest {
    private static final String TOPIC = "MixedToBasalt";

    @TempDir
    Path dir;

    @Test
    void acknowledgedSendsAreInTheBasaltSlaveIdentical() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir)) {
            String namesrv = nameServer.address();
            try (RocketMqBrokerProcess master = RocketMqBrokerProcess.syncMaster(dir.resolve("rocketmq-master"), namesrv,
                     Map.of("registerNameServerPeriod", "10000"));
                 BrokerProcess slave = BrokerProcess.create(dir.resolve("basalt-slave"), Map.of("brokerRole", "SLAVE",
                     "brokerId", "1", "namesrvAddr", namesrv, "registerNameServerPeriod", "10000",
                     "slaveReadEnable", "true"))) {
                master.start();
                MixedReplicas.createTopic(namesrv, master.address(), TOPIC);
                slave.start();
                DefaultMQProducer producer = MixedReplicas.producer(namesrv);
                List<MixedReplicas.Acked> acked;
                try {
                    MixedReplicas.awaitSlaveAttached(producer, TOPIC);
                    acked = MixedReplicas.send(producer, TOPIC, 300);
                } finally {
                    producer.shutdown();
                }
                assertEquals(300, acked.size(), "with the Basalt slave attached every send is acknowledged");
                MixedReplicas.assertSameCommitLog(master.storeDir(), slave.storeDir(), acked);
                Map<String, String> info = MixedReplicas.runtimeInfo(namesrv, slave.address());
                assertEquals("CLASSIC", info.get("haProtocol"), info.toString());

                master.stopGracefully();
                Map<String, String> read = MixedReplicas.readAll(namesrv, TOPIC, acked);
                MixedReplicas.assertAllRead(acked, read);
            }
        }
    }
}
