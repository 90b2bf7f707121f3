package io.basalt.it.controller;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.impl.CommunicationMode;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.RocketMqNameServer;

/**
 * Partitions of a Basalt broker set under a three-node official RocketMQ 5.2.0 Controller ({@code SYNC_FLUSH},
 * {@code allAckInSyncStateSet=true}). Every broker reaches every Controller node through a {@link TcpProxy} of its
 * own, so a test can cut one broker off from the Controller while it still serves clients and its replicas.
 * Besides the routed producer ({@link AckLedger}), one sender per broker sends straight to that broker's address
 * whatever the NameServer says (the official client's own send request, to a fixed address), so a deposed master
 * that still accepted writes would be caught acknowledging them.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class PartitionTest {
    private static final String TOPIC = "PartitionTopic";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    /** An ack of a pinned send: which broker gave it, its sequence number, the receive order, when it was sent and answered. */
    record PinnedAck(String broker, long sequence, long order, long sentNanos, long atNanos) {
    }

    @Test
    void aMasterCutOffFromTheControllerStopsAcknowledgingAndItsTailIsTruncatedWhenItRejoins() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startCluster(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller)) {
            String namesrv = nameServer.address();
            List<List<TcpProxy>> proxies = new ArrayList<>();
            List<BrokerProcess> brokers = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    List<TcpProxy> mine = new ArrayList<>();
                    for (int n = 0; n < controller.size(); n++) {
                        mine.add(new TcpProxy(controller.address(n)));
                    }
                    proxies.add(mine);
                    String addr = mine.stream().map(TcpProxy::address).collect(Collectors.joining(";"));
                    brokers.add(set.add(dir.resolve("b" + i), addr, namesrv, Map.of()));
                }
                brokers.get(0).start();
                set.awaitSet(1, ofSeconds(60));
                brokers.get(1).start();
                brokers.get(2).start();
                BrokerSet.Replicas before = set.awaitSet(3, ofSeconds(90));
                set.createTopic(before.master(), TOPIC, 4);
                int oldIndex = brokers.indexOf(set.at(before.master()));
                String old = before.master();

                ConcurrentLinkedQueue<PinnedAck> pinnedAcks = new ConcurrentLinkedQueue<>();
                try (AckLedger ledger = new AckLedger(namesrv, TOPIC, 2);
                     PinnedSenders pinned = new PinnedSenders(namesrv, TOPIC, brokers, pinnedAcks)) {
                    await().atMost(ofSeconds(60)).until(() -> ledger.ackedCount() >= 100
                        && pinnedAcks.stream().anyMatch(a -> a.broker().equals(old)));

                    // the master loses the Controller (and keeps its clients and replicas)
                    proxies.get(oldIndex).forEach(TcpProxy::partition);
                    long cut = System.nanoTime();
                    BrokerSet.Replicas elected = await().atMost(ofSeconds(60)).pollInterval(ofMillis(100))
                        .until(set::replicas, r -> r != null && r.hasMaster() && !r.master().equals(old));
                    assertTrue(elected.masterEpoch() > before.masterEpoch(), "epoch " + elected.masterEpoch());
                    await().atMost(ofSeconds(60)).until(() -> pinnedAcks.stream()
                        .anyMatch(a -> a.broker().equals(elected.master()) && a.atNanos() > cut));
                    // a few seconds of the old master still taking pinned sends, cut off
                    long lastOldAckBefore = pinnedAcks.stream().filter(a -> a.broker().equals(old)).count();
                    Thread.sleep(3000);
                    long tailOffset = maxOffset(set, old);

                    proxies.get(oldIndex).forEach(TcpProxy::heal);
                    await().atMost(ofSeconds(90)).until(() -> !old.equals(set.registered().get(0L))
                        && set.registered().containsValue(old));
                    set.awaitSet(3, ofSeconds(90));
                    ledger.stop();
                    pinned.stop();

                    // at no time did two brokers of the set acknowledge writes: once the new master acknowledged a
                    // send, the old one acknowledged none that was sent after that (a send it took before, answered
                    // late, was replicated to the new master before its promotion: it is checked in the read-back)
                    List<PinnedAck> order = pinnedAcks.stream().sorted(Comparator.comparingLong(PinnedAck::order)).toList();
                    long firstNewAt = order.stream().filter(a -> a.broker().equals(elected.master()))
                        .mapToLong(PinnedAck::atNanos).min().orElseThrow();
                    List<PinnedAck> oldAfterNew = order.stream()
                        .filter(a -> a.broker().equals(old) && a.sentNanos() > firstNewAt).toList();
                    assertEquals(List.of(), oldAfterNew, "acks of the deposed master " + old + " for sends made after the"
                        + " new master " + elected.master() + " acknowledged (old master acks before the cut: "
                        + lastOldAckBefore + "); ms from the cut: the new master's first ack "
                        + (firstNewAt - cut) / 1_000_000 + ", the old master's acks after it " + oldAfterNew.stream()
                        .map(a -> (a.sentNanos() - cut) / 1_000_000 + ".." + (a.atNanos() - cut) / 1_000_000).toList()
                        + ", the old master's last acks " + order.stream().filter(a -> a.broker().equals(old))
                        .skip(Math.max(0, lastOldAckBefore - 3)).map(a -> (a.sentNanos() - cut) / 1_000_000 + ".."
                            + (a.atNanos() - cut) / 1_000_000).toList());
                    assertEquals(List.of(), order.stream().map(PinnedAck::broker)
                        .filter(b -> !b.equals(old) && !b.equals(elected.master())).distinct().toList(),
                        "acks of brokers that were never master");
                    List<String> ackers = ledger.acks().stream().map(AckLedger.Ack::broker).distinct().toList();
                    assertTrue(List.of(old, elected.master()).containsAll(ackers), "routed acks from " + ackers);

                    // the old master's unreplicated tail is gone: once in the SyncStateSet again, its commit log
                    // ends where the new master's does
                    String master = set.replicas().master();
                    await().atMost(ofSeconds(60)).until(() -> maxOffset(set, old) == maxOffset(set, master));
                    Map<Long, AckLedger.Ack> acked = ledger.acked();
                    Map<Long, Integer> copies = TopicReadBack.copies(namesrv, TOPIC, acked.size() + pinnedAcks.size());
                    List<Long> missing = acked.keySet().stream().filter(s -> !copies.containsKey(s)).toList();
                    assertTrue(missing.isEmpty(), missing.size() + " acknowledged routed sends missing; old master's"
                        + " commit log ended at " + tailOffset + " while cut off");
                    List<PinnedAck> pinnedMissing = order.stream().filter(a -> !copies.containsKey(a.sequence())).toList();
                    assertEquals(List.of(), pinnedMissing, "acknowledged pinned sends missing from the set's log");
                }
            } finally {
                proxies.forEach(list -> list.forEach(TcpProxy::close));
            }
        }
    }

    @Test
    void theSetGoesOnWhenOneControllerNodeIsCutOff() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startCluster(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller)) {
            String namesrv = nameServer.address();
            List<BrokerProcess> brokers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                brokers.add(set.add(dir.resolve("b" + i), controller.controllerAddr(), namesrv, Map.of()));
            }
            brokers.get(0).start();
            set.awaitSet(1, ofSeconds(60));
            brokers.get(1).start();
            brokers.get(2).start();
            BrokerSet.Replicas before = set.awaitSet(3, ofSeconds(90));
            set.createTopic(before.master(), TOPIC, 4);
            try (AckLedger ledger = new AckLedger(namesrv, TOPIC, 2)) {
                await().atMost(ofSeconds(60)).until(() -> ledger.ackedCount() >= 100);
                // the Controller's leader frozen: cut off from its peers and from every broker, its sockets open
                int leader = controller.awaitLeader();
                signal("STOP", controller.pid(leader));
                try {
                    await().atMost(ofSeconds(60)).pollInterval(ofMillis(200)).until(() ->
                        controller.leaderIndex().filter(i -> i != leader).isPresent());
                    // the set keeps a master and its SyncStateSet, and the producer goes on being acknowledged
                    long acked = ledger.ackedCount();
                    await().atMost(ofSeconds(30)).until(() -> ledger.ackedCount() >= acked + 200);
                    BrokerSet.Replicas during = set.awaitSet(3, ofSeconds(60));
                    // and the Controller still fails over: kill the master, another is elected by the two nodes left
                    BrokerProcess victim = set.at(during.master());
                    victim.killHard();
                    long dead = System.nanoTime();
                    BrokerSet.Replicas next = await().atMost(ofSeconds(60)).pollInterval(ofMillis(100))
                        .until(set::replicas, r -> r != null && r.hasMaster() && !r.master().equals(during.master()));
                    // the new master must learn its role, register as master and be routed to; on a loaded machine
                    // with one Controller node frozen that can take a while, hence the generous bound
                    try {
                        await().atMost(ofSeconds(120)).until(() -> ledger.ackedAfter(dead).stream()
                            .anyMatch(a -> a.broker().equals(next.master())));
                    } catch (ConditionTimeoutException e) {
                        throw new AssertionError("no ack from the new master " + next.master() + " (epoch "
                            + next.masterEpoch() + ") within 120 s of killing " + during.master() + "; Controller view now "
                            + set.replicas() + ", routed acks since the kill from " + ledger.ackedAfter(dead).stream()
                            .map(AckLedger.Ack::broker).distinct().toList() + ", failed sends " + ledger.failed()
                            + ", last error " + ledger.lastError(), e);
                    }
                    victim.start();
                } finally {
                    signal("CONT", controller.pid(leader));
                }
                set.awaitSet(3, ofSeconds(90));
                ledger.stop();
                Map<Long, AckLedger.Ack> acked = ledger.acked();
                Map<Long, Integer> copies = TopicReadBack.copies(namesrv, TOPIC, acked.size());
                List<Long> missing = acked.keySet().stream().filter(s -> !copies.containsKey(s)).toList();
                assertTrue(missing.isEmpty(), missing.size() + " acknowledged sends missing");
            }
        }
    }

    private static void signal(String signal, long pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertEquals(0, p.waitFor(), "kill -" + signal + " " + pid);
    }

    /** The broker's commit log max offset (GET_BROKER_RUNTIME_INFO {@code commitLogMaxOffset}). */
    private static long maxOffset(BrokerSet set, String broker) throws Exception {
        return Long.parseLong(set.admin().fetchBrokerRuntimeStats(broker).getTable().get("commitLogMaxOffset"));
    }

    /**
     * One thread per broker sending to that broker's address with the official client's SEND_MESSAGE request,
     * whatever the route says; every SEND_OK recorded with the broker and a global receive order.
     */
    static final class PinnedSenders implements AutoCloseable {
        private final DefaultMQProducer producer;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicLong order = new AtomicLong();
        private final AtomicLong sequence = new AtomicLong(1L << 40);
        private volatile boolean running = true;

        PinnedSenders(String namesrv, String topic, List<BrokerProcess> brokers, ConcurrentLinkedQueue<PinnedAck> acks)
            throws Exception {
            producer = new DefaultMQProducer("pg-pinned-" + topic);
            producer.setNamesrvAddr(namesrv);
            producer.setInstanceName(Clients.instanceName());
            producer.start();
            for (BrokerProcess b : brokers) {
                String addr = b.address();
                Thread t = new Thread(() -> {
                    while (running) {
                        long seq = sequence.getAndIncrement();
                        Message msg = new Message(topic, ByteBuffer.allocate(64).putLong(seq).array());
                        SendMessageRequestHeader h = new SendMessageRequestHeader();
                        h.setProducerGroup(producer.getProducerGroup());
                        h.setTopic(topic);
                        h.setDefaultTopic("TBW102");
                        h.setDefaultTopicQueueNums(4);
                        h.setQueueId((int) (seq % 4));
                        h.setSysFlag(0);
                        h.setBornTimestamp(System.currentTimeMillis());
                        h.setFlag(0);
                        h.setReconsumeTimes(0);
                        h.setBatch(false);
                        h.setBrokerName(BrokerSet.BROKER_NAME);
                        long sentNanos = System.nanoTime();
                        try {
                            SendResult r = producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl()
                                .sendMessage(addr, BrokerSet.BROKER_NAME, msg, h, 3000, CommunicationMode.SYNC, null,
                                    producer.getDefaultMQProducerImpl());
                            if (r.getSendStatus() == SendStatus.SEND_OK) {
                                acks.add(new PinnedAck(addr, seq, order.incrementAndGet(), sentNanos, System.nanoTime()));
                            }
                        } catch (Exception refusedOrSlave) {
                            // a slave, a fenced master, a timeout: not acknowledged
                        }
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "pinned-sender-" + addr);
                threads.add(t);
                t.start();
            }
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.join(30_000);
            }
            producer.shutdown();
        }

        @Override
        public void close() throws InterruptedException {
            if (running) {
                stop();
            }
        }
    }
}
