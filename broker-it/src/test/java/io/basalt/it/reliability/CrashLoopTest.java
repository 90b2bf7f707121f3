package io.basalt.it.reliability;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Crash loop: a master (with a SYNC_MASTER slave in the SYNC_FLUSH loop) takes sync sends from several
 * official 5.2.0 producer threads while a push consumer reads; at a random moment (a random number of
 * acknowledgements, seeded; the seed is printed and {@code -Dbasalt.reliability.seed} replays it) the
 * master or the slave gets {@code kill -9} and is restarted. After every cycle the whole topic is read
 * back by queue offset with a pull consumer and checked:
 * <ul>
 *   <li>every acknowledged message is at the queue and queue offset its SendResult named, once;</li>
 *   <li>every queue offset 0..max holds a record of that queue (the ConsumeQueue matches the CommitLog)
 *       and no message key sits at two offsets (no duplicated record in the log; producers never retry);</li>
 *   <li>queryMessage by key finds a sample of acknowledged messages (the index matches the CommitLog);</li>
 *   <li>the push consumer group's committed offsets (QUERY_CONSUMER_OFFSET) are not lower after the
 *       restart than just before the kill;</li>
 *   <li>every record the push consumer was served is still at its queue offset after the crash.</li>
 * </ul>
 * At the end the push consumer has seen every acknowledged message at least once (its duplicates are
 * counted, not failed). The ASYNC_FLUSH loop kills only the master process: the page cache survives, so
 * nothing acknowledged may be lost there either.
 */
class CrashLoopTest {
    private static final String TOPIC = "CrashLoopTopic";
    private static final String PUSH_GROUP = "cg-crash-loop-push";
    private static final int QUEUES = 4;
    private static final int PRODUCER_THREADS = 3;

    @TempDir
    Path dir;

    /** What a SendResult promised: the queue, the queue offset and the body length of one key. */
    private record Ack(int queueId, long queueOffset, int length) {
    }

    @Test
    void syncFlushSyncMasterWithSlaveSurvivesKillsOfMasterAndSlave() throws Exception {
        int haPort = BrokerProcess.freePort();
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "SYNC_MASTER",
                 "flushDiskType", "SYNC_FLUSH", "haListenPort", Integer.toString(haPort),
                 "flushConsumerOffsetInterval", "5000"));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
                 "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + haPort))) {
            new Loop("crash-loop-sync-flush", master, slave).run();
        }
    }

    @Test
    void asyncFlushMasterSurvivesProcessKills() throws Exception {
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "ASYNC_MASTER",
                 "flushDiskType", "ASYNC_FLUSH", "flushConsumerOffsetInterval", "5000"))) {
            new Loop("crash-loop-async-flush", master, null).run();
        }
    }

    /** One crash loop; the test thread drives it, producer threads and the push consumer run alongside. */
    private static final class Loop {
        private final String suite;
        private final BrokerProcess master;
        private final BrokerProcess slave;
        private final Figures figures;
        private final long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        private final Random random = new Random(seed);
        private final Map<String, Ack> acked = new ConcurrentHashMap<>();
        private final AtomicLong ackCount = new AtomicLong();
        private final AtomicLong sendFailures = new AtomicLong();
        /** key -> number of deliveries to the push consumer. */
        private final Map<String, Integer> consumed = new ConcurrentHashMap<>();
        /** queueId/queueOffset -> key of every record the push consumer was served. */
        private final Map<String, String> served = new ConcurrentHashMap<>();
        private final AtomicBoolean sending = new AtomicBoolean();

        Loop(String suite, BrokerProcess master, BrokerProcess slave) {
            this.suite = suite;
            this.master = master;
            this.slave = slave;
            this.figures = Figures.of(suite);
        }

        void run() throws Exception {
            System.out.println("RELIABILITY " + suite + " seed=" + seed);
            int cycles = Figures.scaled("cycles", 10);
            long started = System.nanoTime();
            master.start();
            if (slave != null) {
                slave.start();
            }
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(master.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            NettyRemotingClient remoting = new NettyRemotingClient(new NettyClientConfig());
            remoting.start();
            DefaultMQPushConsumer push = null;
            try {
                admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, QUEUES, QUEUES, 6));
                if (slave != null) {
                    admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, QUEUES, QUEUES, 6));
                }
                push = pushConsumer();
                int masterKills = 0;
                int slaveKills = 0;
                long offsetRegressions = 0;
                for (int cycle = 1; cycle <= cycles; cycle++) {
                    List<Thread> producers = startProducers(cycle);
                    long target = ackCount.get() + 50 + random.nextInt(250);
                    await().atMost(ofSeconds(60)).pollInterval(ofMillis(20)).until(() -> ackCount.get() >= target);
                    boolean killMaster = slave == null || random.nextBoolean();
                    // the push consumer stops pulling and its commits settle: an offset the broker holds
                    // stably (800 ms; RocketMQ's default flushConsumerOffsetInterval, set here, is 5 s) must survive
                    push.suspend();
                    Map<Integer, Long> settled = new HashMap<>(committedOffsets(remoting));
                    await().atMost(ofSeconds(20)).pollInterval(ofMillis(100)).during(ofMillis(800))
                        .until(() -> settled.equals(swap(settled, committedOffsets(remoting))));
                    Map<Integer, Long> before = committedOffsets(remoting);
                    BrokerProcess victim = killMaster ? master : slave;
                    victim.killHard();
                    if (killMaster) {
                        masterKills++;
                    } else {
                        slaveKills++;
                    }
                    victim.start();
                    Map<Integer, Long> after = committedOffsets(remoting);
                    for (Map.Entry<Integer, Long> e : before.entrySet()) {
                        if (after.getOrDefault(e.getKey(), -1L) < e.getValue()) {
                            offsetRegressions++;
                            System.out.println("RELIABILITY " + suite + " cycle " + cycle + ": committed offset of queue "
                                + e.getKey() + " went back from " + e.getValue() + " to " + after.get(e.getKey()));
                        }
                    }
                    push.resume();
                    // the group works again: new acknowledgements after the restart
                    long resumed = ackCount.get() + 20;
                    await().atMost(ofSeconds(60)).pollInterval(ofMillis(50)).until(() -> ackCount.get() >= resumed);
                    sending.set(false);
                    for (Thread t : producers) {
                        t.join(30_000);
                    }
                    checkLog(admin, cycle);
                }
                DefaultMQPushConsumer consumer = push;
                await().atMost(ofSeconds(60)).pollInterval(ofMillis(100))
                    .until(() -> consumed.keySet().containsAll(acked.keySet()));
                long consumerDuplicates = consumed.values().stream().mapToLong(n -> n - 1).sum();
                figures.put("seed", seed).put("cycles", cycles).put("master-kills", masterKills).put("slave-kills", slaveKills)
                    .put("acknowledged", acked.size()).put("send-failures", sendFailures.get()).put("lost", 0)
                    .put("duplicated-in-log", 0).put("consumer-duplicates", consumerDuplicates)
                    .put("offset-regressions", offsetRegressions)
                    .put("seconds", (System.nanoTime() - started) / 1_000_000_000L);
                figures.report();
                assertEquals(0, offsetRegressions, "committed consumer offsets went back across a crash");
                consumer.shutdown();
                push = null;
            } finally {
                sending.set(false);
                if (push != null) {
                    push.shutdown();
                }
                remoting.shutdown();
                admin.shutdown();
            }
        }

        private DefaultMQPushConsumer pushConsumer() throws Exception {
            DefaultMQPushConsumer push = new DefaultMQPushConsumer(PUSH_GROUP);
            push.setNamesrvAddr(master.address());
            push.setInstanceName(Clients.instanceName());
            push.setPollNameServerInterval(1000);
            push.setPersistConsumerOffsetInterval(500);
            push.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            push.subscribe(TOPIC, "*");
            push.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                for (MessageExt m : msgs) {
                    consumed.merge(m.getKeys(), 1, Integer::sum);
                    served.put(m.getQueueId() + "/" + m.getQueueOffset(), m.getKeys());
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            push.start();
            return push;
        }

        private List<Thread> startProducers(int cycle) {
            sending.set(true);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < PRODUCER_THREADS; t++) {
                String prefix = suite + "-c" + cycle + "-t" + t + "-";
                long bodySeed = random.nextLong();
                Thread thread = new Thread(() -> produce(prefix, new Random(bodySeed)), "crash-loop-producer-" + t);
                thread.start();
                threads.add(thread);
            }
            return threads;
        }

        /** Runs on a producer thread until {@link #sending} is cleared; records every SEND_OK. */
        private void produce(String prefix, Random bodies) {
            DefaultMQProducer producer = new DefaultMQProducer("pg-crash-loop");
            producer.setNamesrvAddr(master.address());
            producer.setInstanceName(Clients.instanceName());
            producer.setSendMsgTimeout(5_000);
            producer.setPollNameServerInterval(1000);
            // no client retries: a key at two queue offsets is then a duplicated record in the log
            producer.setRetryTimesWhenSendFailed(0);
            try {
                producer.start();
                for (int i = 0; sending.get(); i++) {
                    String key = prefix + i;
                    byte[] body = body(key, 4096 + bodies.nextInt(8 * 1024));
                    try {
                        SendResult result = producer.send(new Message(TOPIC, "TagA", key, body));
                        if (result.getSendStatus() == SendStatus.SEND_OK) {
                            acked.put(key, new Ack(result.getMessageQueue().getQueueId(), result.getQueueOffset(), body.length));
                            ackCount.incrementAndGet();
                        } else {
                            sendFailures.incrementAndGet();
                        }
                    } catch (Exception failed) {
                        sendFailures.incrementAndGet();
                        // a broker down answers at once: back off instead of spinning the shared cores
                        java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                producer.shutdown();
            }
        }

        private static byte[] body(String key, int length) {
            byte[] body = new byte[length];
            byte[] k = (key + "|").getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < length; i++) {
                body[i] = k[i % k.length];
            }
            return body;
        }

        /** Replaces {@code into}'s content by {@code now} and returns {@code now} (an await's last sample). */
        private static Map<Integer, Long> swap(Map<Integer, Long> into, Map<Integer, Long> now) {
            Map<Integer, Long> previous = new HashMap<>(into);
            into.clear();
            into.putAll(now);
            return previous;
        }

        private Map<Integer, Long> committedOffsets(NettyRemotingClient remoting) throws Exception {
            Map<Integer, Long> offsets = new TreeMap<>();
            for (int q = 0; q < QUEUES; q++) {
                QueryConsumerOffsetRequestHeader header = new QueryConsumerOffsetRequestHeader();
                header.setConsumerGroup(PUSH_GROUP);
                header.setTopic(TOPIC);
                header.setQueueId(q);
                RemotingCommand answer = remoting.invokeSync(master.address(),
                    RemotingCommand.createRequestCommand(RequestCode.QUERY_CONSUMER_OFFSET, header), 10_000);
                offsets.put(q, answer.getCode() == 0 ? Long.parseLong(answer.getExtFields().get("offset")) : -1L);
            }
            return offsets;
        }

        /** Reads every queue from offset 0 to its end and checks it against what was acknowledged and served. */
        private void checkLog(DefaultMQAdminExt admin, int cycle) throws Exception {
            DefaultMQPullConsumer pull = new DefaultMQPullConsumer("cg-crash-loop-check");
            pull.setNamesrvAddr(master.address());
            pull.setInstanceName(Clients.instanceName());
            pull.start();
            Map<String, String> atOffset = new HashMap<>();
            Map<String, String> keyAt = new HashMap<>();
            Map<String, Integer> lengths = new HashMap<>();
            long duplicatedInLog = 0;
            try {
                for (int q = 0; q < QUEUES; q++) {
                    MessageQueue mq = new MessageQueue(TOPIC, master.brokerName(), q);
                    long max = pull.maxOffset(mq);
                    long offset = 0;
                    while (offset < max) {
                        PullResult result = pull.pull(mq, "*", offset, 32);
                        assertEquals(PullStatus.FOUND, result.getPullStatus(),
                            "cycle " + cycle + ": queue " + q + " offset " + offset + " of " + max + " unreadable");
                        for (MessageExt m : result.getMsgFoundList()) {
                            assertEquals(offset, m.getQueueOffset(), "cycle " + cycle + ": a gap in queue " + q);
                            assertEquals(q, m.getQueueId(), "cycle " + cycle + ": a record of another queue");
                            String body = new String(m.getBody(), StandardCharsets.UTF_8);
                            assertTrue(body.startsWith(m.getKeys() + "|"), "cycle " + cycle + ": body of " + m.getKeys());
                            if (atOffset.put(m.getKeys(), q + "/" + offset) != null) {
                                duplicatedInLog++;
                            }
                            lengths.put(m.getKeys(), m.getBody().length);
                            keyAt.put(q + "/" + offset, m.getKeys());
                            offset++;
                        }
                    }
                }
            } finally {
                pull.shutdown();
            }
            assertEquals(0, duplicatedInLog, "cycle " + cycle + ": records duplicated in the log");
            long lost = 0;
            for (Map.Entry<String, Ack> e : acked.entrySet()) {
                Ack ack = e.getValue();
                String where = atOffset.get(e.getKey());
                if (!(ack.queueId() + "/" + ack.queueOffset()).equals(where) || lengths.get(e.getKey()) != ack.length()) {
                    lost++;
                }
            }
            assertEquals(0, lost, "cycle " + cycle + ": acknowledged messages lost or moved (seed " + seed + ")");
            for (Map.Entry<String, String> e : Set.copyOf(served.entrySet())) {
                assertEquals(e.getValue(), keyAt.get(e.getKey()),
                    "cycle " + cycle + ": a record served before the crash is gone at " + e.getKey());
            }
            List<String> keys = new ArrayList<>(acked.keySet());
            for (int i = 0; i < 5 && !keys.isEmpty(); i++) {
                String key = keys.get(random.nextInt(keys.size()));
                List<MessageExt> found = admin.queryMessage(TOPIC, key, 32, 0, Long.MAX_VALUE).getMessageList();
                assertTrue(found.stream().anyMatch(m -> key.equals(m.getKeys())),
                    "cycle " + cycle + ": the index does not find acknowledged key " + key);
            }
        }
    }
}
