package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Transactional messages across a fail-over, master and slave as two broker processes with short check intervals:
 * transactions committed at once on the master and transactions the producer cannot decide yet (its check answers
 * UNKNOW) are replicated; the slave's consumerOffset.json receives the master's {@code CID_RMQ_SYS_TRANS} scan
 * offsets and its config/transactionMetrics the master's pending count; the master is killed and the slave promoted; the promoted slave's back-check asks a new producer of the
 * same group about the pending transactions, which now commits them. Every committed message is then in the topic
 * on the promoted slave exactly once, and no transaction the master had decided is asked about again.
 */
class TransactionFailoverTest {
    private static final int PROMOTE_TO_MASTER = 10101;
    private static final String TOPIC = "TxFailover";
    private static final String GROUP = "pg-tx-failover";
    private static final int EACH = 10;
    private static final Pattern PENDING_COUNT = Pattern.compile(
        "\"" + TOPIC + "\"\\s*:\\s*\\{\\s*\"count\"\\s*:\\s*(\\d+)");
    private static final Pattern HALF_SCAN_OFFSET = Pattern.compile(
        "\"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS\"\\s*:\\s*\\{\\s*\"?0\"?\\s*:\\s*(\\d+)");

    @TempDir
    Path dir;

    /** Early transactions commit at once; late ones stay undecided until {@link #decide} is set, then commit. */
    private static final class Listener implements TransactionListener {
        final AtomicBoolean decide = new AtomicBoolean();
        final AtomicBoolean promoted = new AtomicBoolean();
        /** Bodies checked before and after the promotion. */
        final Set<String> checkedOnMaster = ConcurrentHashMap.newKeySet();
        final Set<String> checkedOnPromoted = ConcurrentHashMap.newKeySet();

        @Override
        public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
            return body(msg).startsWith("early-") ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.UNKNOW;
        }

        @Override
        public LocalTransactionState checkLocalTransaction(MessageExt msg) {
            String body = body(msg);
            (promoted.get() ? checkedOnPromoted : checkedOnMaster).add(body);
            return body.startsWith("early-") || decide.get() ? LocalTransactionState.COMMIT_MESSAGE
                : LocalTransactionState.UNKNOW;
        }
    }

    @Test
    void thePromotedSlaveChecksWhatWasPendingOnTheMasterAndEachCommitIsDeliveredOnce() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        Map<String, String> tx = Map.of("transactionCheckInterval", "2000", "transactionTimeOut", "1000");
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), with(tx, "brokerRole", "ASYNC_MASTER",
                 "haListenPort", Integer.toString(masterHaPort)));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), with(tx, "brokerRole", "SLAVE", "brokerId", "1",
                 "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + masterHaPort));
             NettyClosable remoting = new NettyClosable()) {
            master.start();
            slave.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(master.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            Listener listener = new Listener();
            try {
                admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, 4, 4, 6));
                admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, 4, 4, 6));
                await().atMost(ofSeconds(30)).until(() -> admin.examineTopicRouteInfo(TOPIC).getBrokerDatas().get(0)
                    .getBrokerAddrs().equals(Map.of(0L, master.address(), 1L, slave.address())));

                TransactionMQProducer first = producer(master, listener);
                try {
                    for (int i = 0; i < EACH; i++) {
                        send(first, "early-" + i, LocalTransactionState.COMMIT_MESSAGE);
                    }
                    for (int i = 0; i < EACH; i++) {
                        send(first, "late-" + i, LocalTransactionState.UNKNOW);
                    }
                    DefaultLitePullConsumer onMaster = Clients.litePull(master, "cg-tx-master", TOPIC, "*");
                    try {
                        List<MessageExt> early = Clients.pollAtLeast(onMaster, EACH, 20_000);
                        assertEquals(EACH, early.size(), "the master delivers the committed ones, and only them");
                    } finally {
                        onMaster.shutdown();
                    }
                    // the master checks the late ones (and learns nothing) ...
                    await().atMost(ofSeconds(30)).until(() -> listener.checkedOnMaster.containsAll(bodies("late-")));
                    // ... and its scan has passed the decided half messages: the slave's copy of its offsets says so
                    await().atMost(ofSeconds(40)).until(() -> halfScanOffset(slave) >= EACH);
                    assertTrue(halfScanOffset(slave) <= halfScanOffset(master),
                        "the slave's scan offset is one the master had");
                    // the slave's config/transactionMetrics counts the master's pending ones
                    await().atMost(ofSeconds(30)).until(() -> pendingCount(slave) == EACH);
                    await().atMost(ofSeconds(30)).until(() -> admin.fetchBrokerRuntimeStats(slave.address()).getTable()
                        .get("commitLogMaxOffset").equals(admin.fetchBrokerRuntimeStats(master.address()).getTable()
                            .get("commitLogMaxOffset")));
                } finally {
                    first.shutdown();
                }
                master.killHard();
                listener.promoted.set(true);
                listener.decide.set(true);

                RemotingCommand promote = RemotingCommand.createRequestCommand(PROMOTE_TO_MASTER, null);
                promote.addExtField("role", "ASYNC_MASTER");
                promote.addExtField("expectedEpoch", "1");
                RemotingCommand promoted = remoting.client.invokeSync(slave.address(), promote, 10_000);
                assertEquals(0, promoted.getCode(), promoted.getRemark());

                // a new producer of the group, known to the promoted slave by its heartbeats, answers the checks
                TransactionMQProducer second = producer(slave, listener);
                DefaultLitePullConsumer onSlave = Clients.litePull(slave, "cg-tx-slave", TOPIC, "*");
                try {
                    List<MessageExt> all = new ArrayList<>(Clients.pollAtLeast(onSlave, 2 * EACH, 60_000));
                    all.addAll(onSlave.poll(3_000)); // a second commit would show here
                    Map<String, Long> times = all.stream().collect(Collectors.groupingBy(
                        m -> new String(m.getBody(), StandardCharsets.UTF_8), Collectors.counting()));
                    Set<String> expected = new HashSet<>(bodies("early-"));
                    expected.addAll(bodies("late-"));
                    assertEquals(expected, times.keySet(), "every committed transaction is in the topic on the promoted slave");
                    times.forEach((body, n) -> assertEquals(1L, n, body + " delivered " + n + " times"));
                    assertTrue(listener.checkedOnPromoted.containsAll(bodies("late-")),
                        "the promoted slave asked about the pending ones: " + listener.checkedOnPromoted);
                    assertTrue(listener.checkedOnPromoted.stream().noneMatch(b -> b.startsWith("early-")),
                        "the promoted slave asked again about transactions the master had decided: " + listener.checkedOnPromoted);
                } finally {
                    onSlave.shutdown();
                    second.shutdown();
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    private static Map<String, String> with(Map<String, String> base, String... keyValues) {
        Map<String, String> out = new java.util.LinkedHashMap<>(base);
        for (int i = 0; i < keyValues.length; i += 2) {
            out.put(keyValues[i], keyValues[i + 1]);
        }
        return out;
    }

    private static List<String> bodies(String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < EACH; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    private static String body(Message msg) {
        return new String(msg.getBody(), StandardCharsets.UTF_8);
    }

    /** The next half-queue offset to scan, from the broker's consumerOffset.json (-1 while it has none). */
    private static long halfScanOffset(BrokerProcess broker) throws Exception {
        Path file = broker.storeDir().resolve("config/consumerOffset.json");
        if (!Files.exists(file)) {
            return -1;
        }
        Matcher m = HALF_SCAN_OFFSET.matcher(Files.readString(file));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The pending count of {@link #TOPIC} in the broker's config/transactionMetrics (-1 while it has none). */
    private static long pendingCount(BrokerProcess broker) throws Exception {
        Path file = broker.storeDir().resolve("config/transactionMetrics");
        if (!Files.exists(file)) {
            return -1;
        }
        Matcher m = PENDING_COUNT.matcher(Files.readString(file));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * A started transactional producer of {@link #GROUP} whose routes come from {@code broker}; one plain send gives
     * it the broker's route, so it heartbeats there (and can be checked) before it sent any half message.
     */
    private static TransactionMQProducer producer(BrokerProcess broker, TransactionListener listener) throws Exception {
        TransactionMQProducer p = new TransactionMQProducer(GROUP);
        p.setNamesrvAddr(broker.address());
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setPollNameServerInterval(1000);
        p.setHeartbeatBrokerInterval(1000);
        p.setTransactionListener(listener);
        p.start();
        assertEquals(SendStatus.SEND_OK, p.send(new Message(TOPIC + "Ping", "ping".getBytes(StandardCharsets.UTF_8)))
            .getSendStatus());
        return p;
    }

    private static void send(TransactionMQProducer producer, String body, LocalTransactionState expected) throws Exception {
        TransactionSendResult r = producer.sendMessageInTransaction(
            new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8)), null);
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        assertEquals(expected, r.getLocalTransactionState());
    }

    /** The official remoting client, for PROMOTE_TO_MASTER, which no admin API sends. */
    private static final class NettyClosable implements AutoCloseable {
        final NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());

        NettyClosable() {
            client.start();
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
