package io.basalt.it.mixedha;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.RocketMqBrokerProcess;
import io.basalt.it.RocketMqNameServer;
import io.basalt.it.controller.BrokerSet;
import io.basalt.it.controller.RocketMqControllerProcess;

/**
 * A real RocketMQ 5.2.0 broker and a Basalt broker form one broker set {@code broker-a} in controller mode under the
 * official RocketMQ 5.2.0 Controller (one node), {@code SYNC_FLUSH} and {@code allAckInSyncStateSet=true}, and fail
 * over to each other in both directions:
 *
 * <ul>
 * <li>RocketMQ is elected master, Basalt joins its SyncStateSet over RocketMQ's AutoSwitch HA protocol; after the
 * RocketMQ master is killed with {@code kill -9} the Controller elects the Basalt broker, the NameServer routes
 * brokerId 0 to it and it takes the official producer's sends;</li>
 * <li>the reverse: Basalt is master, RocketMQ joins, Basalt is killed and the RocketMQ broker takes over.</li>
 * </ul>
 *
 * <p>Every send acknowledged before the kill was stored by the old master, every one after it by the new master,
 * and the official consumer reads every acknowledged message, with its body, exactly once from the new master.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class ControllerMixedReplicasTest {
    private static final int SENT = 300;

    /** Kept when a test fails: the logs of the Controller and both brokers. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    /** A kill -9 of one broker process. */
    private interface Kill {
        void run() throws Exception;
    }

    @Test
    void aBasaltReplicaTakesOverFromAKilledRocketMqMaster() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startSingle(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller);
             RocketMqBrokerProcess rocketMq = rocketMq(controller, nameServer.address())) {
            String namesrv = nameServer.address();
            BrokerProcess basalt = set.add(dir.resolve("basalt"), controller.controllerAddr(), namesrv, Map.of());
            rocketMq.start();
            set.awaitSet(1, ofSeconds(90));
            assertEquals(rocketMq.address(), set.replicas().master(), "the first broker of the set is elected");
            basalt.start();
            BrokerSet.Replicas both = awaitBoth(set, rocketMq.address(), basalt.address());
            assertEquals("AUTOSWITCH", MixedReplicas.runtimeInfo(namesrv, basalt.address()).get("haProtocol"),
                "the Basalt replica speaks RocketMQ's AutoSwitch HA protocol");
            failOver(set, namesrv, "MixedControllerToBasalt", both, rocketMq::killHard, basalt.address());
        }
    }

    @Test
    void aRocketMqReplicaTakesOverFromAKilledBasaltMaster() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startSingle(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller);
             RocketMqBrokerProcess rocketMq = rocketMq(controller, nameServer.address())) {
            String namesrv = nameServer.address();
            BrokerProcess basalt = set.add(dir.resolve("basalt"), controller.controllerAddr(), namesrv, Map.of());
            basalt.start();
            set.awaitSet(1, ofSeconds(90));
            assertEquals(basalt.address(), set.replicas().master(), "the first broker of the set is elected");
            rocketMq.start();
            BrokerSet.Replicas both = awaitBoth(set, basalt.address(), rocketMq.address());
            Map<String, String> info = MixedReplicas.runtimeInfo(namesrv, basalt.address());
            assertEquals("AUTOSWITCH", info.get("haSlave0Protocol"), "the RocketMQ replica's HA connection: " + info);
            failOver(set, namesrv, "MixedControllerToRocketMq", both, basalt::killHard, rocketMq.address());
        }
    }

    /** A RocketMQ 5.2.0 broker of the set in controller mode, with the keys the Basalt brokers of the set have. */
    private RocketMqBrokerProcess rocketMq(RocketMqControllerProcess controller, String namesrv) throws Exception {
        return RocketMqBrokerProcess.create(dir.resolve("rocketmq"), dir.resolve("rocketmq/store"), namesrv,
            BrokerSet.conf(controller.controllerAddr(), namesrv));
    }

    /** Waits until the SyncStateSet of {@code master} holds both brokers, alive, and returns the Controller's view. */
    private static BrokerSet.Replicas awaitBoth(BrokerSet set, String master, String replica) {
        BrokerSet.Replicas both = set.awaitSet(2, ofSeconds(120));
        assertEquals(master, both.master(), "the replica joined without an election: " + both);
        assertEquals(Set.of(master, replica), both.aliveInSync(), both.toString());
        return both;
    }

    /**
     * With both brokers in the SyncStateSet of {@code both.master()}: sends {@link #SENT} messages (every one
     * acknowledged by the master), kills the master, waits for the Controller to elect {@code replica} and the
     * NameServer to route to it, sends {@link #SENT} more (every one acknowledged by {@code replica}) and reads the
     * topic back from {@code replica}.
     */
    private void failOver(BrokerSet set, String namesrv, String topic, BrokerSet.Replicas both, Kill kill,
        String replica) throws Exception {
        String master = both.master();
        MixedReplicas.createTopic(namesrv, master, topic);

        List<Sent> acked = new ArrayList<>();
        BrokerSet.Replicas elected;
        DefaultMQProducer producer = MixedReplicas.producer(namesrv);
        try {
            acked.addAll(sendAll(producer, topic, "before-", master));
            kill.run();
            elected = await().atMost(ofSeconds(90)).pollInterval(ofMillis(200))
                .alias(replica + " elected master and brokerId 0 on the NameServer")
                .until(set::replicas, r -> r != null && replica.equals(r.master())
                    && r.masterEpoch() > both.masterEpoch() && replica.equals(set.registered().get(0L)));
            assertEquals(Set.of(replica), elected.aliveInSync(), elected.toString());
            // the producer's route still names the killed master until its next NameServer poll
            Sent first = await().atMost(ofSeconds(60)).pollInterval(ofMillis(500)).ignoreExceptions()
                .until(() -> send(producer, topic, "first-after-" + System.nanoTime()), s -> s != null);
            assertEquals(replica, first.storedBy(), "the broker that stored the first send after the kill");
            acked.add(first);
            acked.addAll(sendAll(producer, topic, "after-", replica));
        } finally {
            producer.shutdown();
        }

        Map<String, List<String>> read = readBack(namesrv, topic, acked);
        List<String> missing = acked.stream().filter(s -> !read.containsKey(s.key())).map(Sent::key).toList();
        Map<String, Integer> duplicated = read.entrySet().stream().filter(e -> e.getValue().size() > 1)
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size()));
        List<String> corrupt = acked.stream().filter(s -> read.containsKey(s.key())
            && !read.get(s.key()).contains(s.body())).map(Sent::key).toList();
        String summary = master + " (epoch " + both.masterEpoch() + ") -> " + replica + " (epoch "
            + elected.masterEpoch() + "): " + acked.size() + " acknowledged, " + read.size()
            + " distinct keys read back";
        String context = summary + "; logs in " + dir;
        assertTrue(missing.isEmpty(), missing.size() + " acknowledged but not read back, e.g. "
            + missing.stream().limit(10).toList() + ": " + context);
        assertTrue(duplicated.isEmpty(), duplicated.size() + " read more than once, e.g. "
            + duplicated.entrySet().stream().limit(10).toList() + ": " + context);
        assertTrue(corrupt.isEmpty(), corrupt.size() + " read with another body, e.g. "
            + corrupt.stream().limit(10).toList() + ": " + context);
        System.out.println("ControllerMixedReplicasTest " + topic + ": " + summary);
    }

    /** An acknowledged send: its unique key and body, and the address of the broker that stored it. */
    private record Sent(String key, String body, String storedBy) {
    }

    /** Sends {@link #SENT} messages; every one must be SEND_OK and stored by {@code broker}. */
    private static List<Sent> sendAll(DefaultMQProducer producer, String topic, String prefix, String broker)
        throws Exception {
        List<Sent> sent = new ArrayList<>();
        for (int i = 0; i < SENT; i++) {
            Sent s = send(producer, topic, prefix + i);
            assertTrue(s != null, "send " + prefix + i + " was not SEND_OK");
            assertEquals(broker, s.storedBy(), "the broker that stored " + s.key());
            sent.add(s);
        }
        return sent;
    }

    /** One send with a unique key and body; the acknowledged send, or null when it was not SEND_OK. */
    private static Sent send(DefaultMQProducer producer, String topic, String key) throws Exception {
        String body = "controller-mixed-" + key + "-" + "x".repeat(100 + Math.floorMod(key.hashCode(), 300));
        SendResult r = producer.send(new Message(topic, "T", key, body.getBytes(StandardCharsets.UTF_8)));
        if (r.getSendStatus() != SendStatus.SEND_OK) {
            return null;
        }
        InetSocketAddress host = (InetSocketAddress) MessageDecoder.decodeMessageId(r.getOffsetMsgId()).getAddress();
        return new Sent(key, body, host.getHostString() + ":" + host.getPort());
    }

    /**
     * Every body of {@code topic} by key, read with the official lite pull consumer (a new group, from the first
     * offset): until every acknowledged key arrived and then 3 s pass without a message, or 60 s without one.
     */
    private static Map<String, List<String>> readBack(String namesrv, String topic, List<Sent> acked) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer("cg-" + topic);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setAutoCommit(false);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.start();
        Set<String> expected = acked.stream().map(Sent::key).collect(Collectors.toSet());
        Map<String, List<String>> read = new HashMap<>();
        try {
            long lastArrival = System.nanoTime();
            while (true) {
                List<MessageExt> batch = c.poll(500);
                for (MessageExt m : batch) {
                    read.computeIfAbsent(m.getKeys(), k -> new ArrayList<>())
                        .add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
                long quietNanos = System.nanoTime() - lastArrival;
                if (!batch.isEmpty()) {
                    lastArrival = System.nanoTime();
                } else if (read.keySet().containsAll(expected) && quietNanos > 3_000_000_000L
                    || quietNanos > 60_000_000_000L) {
                    return read;
                }
            }
        } finally {
            c.shutdown();
        }
    }
}
