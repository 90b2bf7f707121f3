package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.body.HARuntimeInfo;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.MqAdmin;
import io.basalt.it.RocketMqNameServer;

/**
 * The official 5.2.0 {@code mqadmin getBrokerEpoch} and {@code haStatus} against a Basalt master and slave in
 * classic mode, registered with a real NameServer: both brokers report the same epoch history, the master its
 * slave with the acknowledged offset and OK (in sync), the slave its master and its CommitLog end.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class HaAdminCommandsTest {
    private static final Pattern EPOCH_LINE = Pattern.compile(
        "#Epoch: EpochEntry\\{epoch=(\\d+), startOffset=(\\d+), endOffset=(\\d+)}");
    private static final Pattern BROKER_ADDR = Pattern.compile("#brokerAddr\\t(\\S+)");

    @TempDir
    Path dir;
    private RocketMqNameServer nameServer;
    private String namesrv;

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
        namesrv = nameServer.address();
    }

    @AfterEach
    void stopNameServer() {
        nameServer.close();
    }

    /** One broker's part of {@code getBrokerEpoch}'s output: its address and epoch lines. */
    private record BrokerEpochs(String addr, List<long[]> epochs) {
    }

    private static List<BrokerEpochs> parseEpochs(String output) {
        List<BrokerEpochs> brokers = new ArrayList<>();
        for (String block : output.split("#clusterName")) {
            Matcher addr = BROKER_ADDR.matcher(block);
            if (!addr.find()) {
                continue;
            }
            List<long[]> epochs = new ArrayList<>();
            Matcher m = EPOCH_LINE.matcher(block);
            while (m.find()) {
                epochs.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
            }
            brokers.add(new BrokerEpochs(addr.group(1), epochs));
        }
        return brokers;
    }

    @Test
    void getBrokerEpochAndHaStatusShowTheReplicatedPair() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "SYNC_MASTER",
                "haListenPort", Integer.toString(masterHaPort), "namesrvAddr", namesrv));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE",
                "brokerId", "1", "haMasterAddress", "127.0.0.1:" + masterHaPort, "namesrvAddr", namesrv))) {
            master.start();
            slave.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(namesrv);
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                await().atMost(ofSeconds(30)).until(() -> {
                    var group = admin.examineBrokerClusterInfo().getBrokerAddrTable().get("broker-a");
                    return group != null && group.getBrokerAddrs().size() == 2;
                });
                // the slave asks the master's HA protocol once the NameServer named the master: wait until it streams
                await().atMost(ofSeconds(30)).ignoreExceptions().until(() -> "TRANSFER".equals(
                    admin.fetchBrokerRuntimeStats(slave.address()).getTable().get("haClientState")));
                // SYNC_MASTER: each acknowledged send is on the slave
                DefaultMQProducer producer = Clients.producer(master, "ha-admin-producer");
                try {
                    for (int i = 0; i < 20; i++) {
                        assertEquals(SendStatus.SEND_OK, producer.send(new Message("HaAdminTopic",
                            ("m" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
                    }
                } finally {
                    producer.shutdown();
                }
                HARuntimeInfo masterInfo = admin.getBrokerHAStatus(master.address());
                long masterMax = masterInfo.getMasterCommitLogMaxOffset();
                assertTrue(masterMax > 0);
                await().atMost(ofSeconds(30)).until(() -> admin.getBrokerHAStatus(master.address())
                    .getHaConnectionInfo().stream().anyMatch(c -> c.getSlaveAckOffset() >= masterMax));
            } finally {
                admin.shutdown();
            }

            // getBrokerEpoch by broker name and by cluster: both brokers, the same history, the last entry open
            for (String[] selector : List.of(new String[] {"-b", "broker-a"}, new String[] {"-c", "DefaultCluster"})) {
                String out = MqAdmin.run("getBrokerEpoch", "-n", namesrv, selector[0], selector[1]);
                List<BrokerEpochs> brokers = parseEpochs(out);
                assertEquals(2, brokers.size(), out);
                assertEquals(List.of(master.address(), slave.address()).stream().sorted().toList(),
                    brokers.stream().map(BrokerEpochs::addr).sorted().toList(), out);
                for (BrokerEpochs b : brokers) {
                    assertEquals(1, b.epochs().size(), out);
                    assertEquals(1, b.epochs().get(0)[0], out);
                    assertEquals(0, b.epochs().get(0)[1], out);
                    assertTrue(b.epochs().get(0)[2] > 0, out); // mqadmin prints the broker's maxOffset as the end
                }
                assertTrue(out.contains("#clusterName\tDefaultCluster"), out);
                assertTrue(out.contains("#brokerName\tbroker-a"), out);
            }

            // haStatus on the master: one slave, acknowledged up to the master's end, in sync
            String masterStatus = MqAdmin.run("haStatus", "-n", namesrv, "-b", master.address());
            Matcher head = Pattern.compile("#MasterCommitLogMaxOffset\\t(\\d+)\\s+#SlaveNum\\t(\\d+)\\s+#InSyncSlaveNum\\t(\\d+)")
                .matcher(masterStatus);
            assertTrue(head.find(), masterStatus);
            long masterMax = Long.parseLong(head.group(1));
            assertEquals("1", head.group(2), masterStatus);
            assertEquals("1", head.group(3), masterStatus);
            Matcher row = Pattern.compile("(127\\.0\\.0\\.1:\\d+)\\s+(\\d+)\\s+(\\d+)\\s+([\\d.]+)\\s+OK\\s+(\\d+)")
                .matcher(masterStatus);
            assertTrue(row.find(), masterStatus);
            assertEquals(masterMax, Long.parseLong(row.group(2)), masterStatus);
            assertEquals(0, Long.parseLong(row.group(3)), masterStatus);

            // haStatus on the slave: its master's HA address and its CommitLog end, the master's
            String slaveStatus = MqAdmin.run("haStatus", "-n", namesrv, "-b", slave.address());
            assertTrue(slaveStatus.contains("#MasterAddr\t127.0.0.1:" + masterHaPort), slaveStatus);
            assertTrue(slaveStatus.contains("#CommitLogMaxOffset\t" + masterMax), slaveStatus);
            // it streams: the last read is this run's, not RocketMQ's "never" (the epoch)
            assertTrue(!slaveStatus.contains("#LastReadTime\t1970-"), slaveStatus + slave.output());
        }
    }
}
