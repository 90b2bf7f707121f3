package io.basalt.it.controller;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.MqAdmin;
import io.basalt.it.RocketMqNameServer;

/**
 * The official 5.2.0 {@code mqadmin} controller commands against a deployment of Basalt brokers under a
 * three-node RocketMQ Controller: {@code getControllerMetaData}, {@code getControllerConfig},
 * {@code getSyncStateSet} (the Basalt master and its replicas as the Controller holds them) and
 * {@code electMaster} designating the other replica, which becomes master, registers as brokerId 0 and takes
 * the producer's sends. Uses the controller-mode keys of {@link BrokerSet#conf} except
 * {@code allAckInSyncStateSet} (the commands do not depend on how sends are acknowledged).
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class ControllerAdminTest {
    private static final String TOPIC = "ControllerAdminTopic";

    @TempDir
    Path dir;

    @Test
    void mqadminReadsAndElectsThroughTheController() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startCluster(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller)) {
            String namesrv = nameServer.address();
            Map<String, String> noAllAck = Map.of("allAckInSyncStateSet", "false");
            BrokerProcess first = set.add(dir.resolve("b1"), controller.controllerAddr(), namesrv, noAllAck);
            BrokerProcess second = set.add(dir.resolve("b2"), controller.controllerAddr(), namesrv, noAllAck);
            first.start();
            set.awaitSet(1, ofSeconds(60));
            second.start();
            BrokerSet.Replicas replicas = set.awaitSet(2, ofSeconds(90));
            assertEquals(first.address(), replicas.master());
            int leader = controller.awaitLeader();
            String ctrl = controller.address(leader);

            String meta = MqAdmin.run("getControllerMetaData", "-a", controller.address((leader + 1) % 3));
            assertTrue(meta.contains(ctrl), "getControllerMetaData names the leader " + ctrl + ":\n" + meta);

            String config = MqAdmin.run("getControllerConfig", "-a", ctrl);
            assertTrue(config.contains("scanNotActiveBrokerInterval") && config.contains("500"), config);

            String syncState = MqAdmin.run("getSyncStateSet", "-a", ctrl, "-b", BrokerSet.BROKER_NAME);
            assertTrue(syncState.contains(first.address()) && syncState.contains(second.address()),
                "getSyncStateSet lists master and replica:\n" + syncState);

            BrokerReplicasInfo.ReplicasInfo info = set.admin().getInSyncStateData(ctrl, List.of(BrokerSet.BROKER_NAME))
                .getReplicasInfoTable().get(BrokerSet.BROKER_NAME);
            long secondId = info.getInSyncReplicas().stream().filter(r -> r.getBrokerAddress().equals(second.address()))
                .findFirst().orElseThrow().getBrokerId();
            set.createTopic(first.address(), TOPIC, 4);
            DefaultMQProducer producer = new DefaultMQProducer("pg-controller-admin");
            producer.setNamesrvAddr(namesrv);
            producer.setInstanceName(Clients.instanceName());
            producer.setPollNameServerInterval(500);
            producer.start();
            try {
                await().atMost(ofSeconds(30)).ignoreExceptions().until(() -> producer.send(new Message(TOPIC,
                    "before".getBytes(StandardCharsets.UTF_8))).getSendStatus() == SendStatus.SEND_OK);
                // the replica has to be caught up to be electable: wait until it is in the SyncStateSet again
                set.awaitSet(2, ofSeconds(60));

                String elect = MqAdmin.run("electMaster", "-a", ctrl, "-c", "DefaultCluster", "-bn",
                    BrokerSet.BROKER_NAME, "-b", Long.toString(secondId));
                assertTrue(elect.contains(second.address()), "electMaster answers with the new master:\n" + elect);
                await().atMost(ofSeconds(60)).pollInterval(ofMillis(200)).until(() -> {
                    BrokerSet.Replicas r = set.replicas();
                    return r != null && second.address().equals(r.master())
                        && second.address().equals(set.registered().get(0L));
                });
                await().atMost(ofSeconds(60)).ignoreExceptions().until(() -> producer.send(new Message(TOPIC,
                    "after".getBytes(StandardCharsets.UTF_8))).getSendStatus() == SendStatus.SEND_OK);
                // the deposed master follows the new one
                await().atMost(ofSeconds(60)).until(() -> replicaIdOf(set, first) > 0);
            } finally {
                producer.shutdown();
            }
        }
    }

    /** The first broker's registration id as the NameServer has it now (not 0), or -1. */
    private static long replicaIdOf(BrokerSet set, BrokerProcess broker) {
        return set.registered().entrySet().stream().filter(e -> e.getValue().equals(broker.address()) && e.getKey() != 0)
            .mapToLong(Map.Entry::getKey).findFirst().orElse(-1L);
    }
}
