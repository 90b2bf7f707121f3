package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionChecker;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official RocketMQ 5.x Java SDK (rocketmq-client-java 5.0.7, gRPC) producing to a Basalt broker process through
 * its own gRPC endpoint: the default TLS client and a plaintext one on the same port; normal, FIFO (message group:
 * one queue per group, in order), timer-delayed and transactional sends (commit, rollback, and a transaction the
 * producer left open that the broker's back-check, pushed on the Telemetry stream, resolves); a topic the broker does
 * not have fails the producer's start. Messages are read back with the official 5.2.0 remoting clients.
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client the class's tests share keeps its remoting client for the whole class; the"
        + " client's response-scan pool starts a thread per scan until it reaches its core size, whichever test runs then")
class GrpcProducerTest {
    @TempDir
    static Path dir;
    static GrpcBroker grpc;
    static BrokerProcess broker;
    static DefaultMQAdminExt admin;
    static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();
    final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void startBroker() throws Exception {
        grpc = GrpcBroker.start(dir.resolve("broker"), Map.of("timerPrecisionMs", "100",
            "transactionTimeOut", "1000", "transactionCheckInterval", "1000"));
        broker = grpc.process;
        admin = grpc.admin;
        createTopic("GrpcNormal", "NORMAL");
        createTopic("GrpcFifo", "FIFO");
        createTopic("GrpcDelay", "DELAY");
        createTopic("GrpcTx", "TRANSACTION");
        createTopic("GrpcOrphan", "TRANSACTION");
    }

    static void createTopic(String topic, String type) throws Exception {
        grpc.createTopic(topic, 4, type);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (grpc != null) {
            grpc.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private ClientConfiguration configuration(boolean tls) {
        return grpc.configuration(tls);
    }

    private Producer producer(boolean tls, String topic) throws ClientException {
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration(tls)).setTopics(topic).build();
        closing.add(p);
        return p;
    }

    private TopicReader reader(String topic) throws Exception {
        TopicReader r = new TopicReader(broker.address(), topic, broker.brokerName(), 4);
        closing.add(r);
        return r;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String body(MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    /** Reads the topic until {@code count} records are there (or the wait times out). */
    private static List<MessageExt> readAtLeast(TopicReader reader, int count) {
        List<MessageExt> read = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            read.addAll(reader.readNew());
            return read.size() >= count;
        });
        return read;
    }

    @Test
    void defaultTlsClientAndPlaintextClientSendOnTheSamePort() throws Exception {
        Producer tls = producer(true, "GrpcNormal");
        Producer plain = producer(false, "GrpcNormal");
        SendReceipt a = tls.send(PROVIDER.newMessageBuilder().setTopic("GrpcNormal").setTag("TagA").setKeys("k1", "k2")
            .addProperty("color", "red").setBody(utf8("over TLS")).build());
        SendReceipt b = plain.send(PROVIDER.newMessageBuilder().setTopic("GrpcNormal").setTag("TagB")
            .setBody(utf8("in plaintext")).build());

        Map<String, MessageExt> byBody = readAtLeast(reader("GrpcNormal"), 2).stream()
            .collect(Collectors.toMap(GrpcProducerTest::body, m -> m));
        MessageExt overTls = byBody.get("over TLS");
        assertNotNull(overTls);
        assertEquals("TagA", overTls.getTags());
        assertEquals("k1 k2", overTls.getKeys());
        assertEquals("red", overTls.getProperty("color"));
        assertEquals(a.getMessageId().toString(), overTls.getMsgId(), "the client's message id is the UNIQ_KEY");
        MessageExt inPlaintext = byBody.get("in plaintext");
        assertNotNull(inPlaintext);
        assertEquals(b.getMessageId().toString(), inPlaintext.getMsgId());

        // the gRPC producers show up as producers of group = topic, with their language and SDK version
        var connections = admin.examineProducerConnectionInfo("GrpcNormal", "GrpcNormal").getConnectionSet();
        assertEquals(2, connections.size(), connections.toString());
        for (var c : connections) {
            assertEquals(org.apache.rocketmq.remoting.protocol.LanguageCode.JAVA, c.getLanguage());
            assertEquals(org.apache.rocketmq.common.MQVersion.Version.V5_0_7.ordinal(), c.getVersion());
        }
    }

    @Test
    void fifoMessagesOfOneGroupLandInOneQueueInOrder() throws Exception {
        Producer p = producer(false, "GrpcFifo");
        List<String> groups = List.of("order-1", "order-2", "order-3", "order-4", "order-5", "order-6");
        int perGroup = 8;
        for (int i = 0; i < perGroup; i++) {
            for (String g : groups) {
                p.send(PROVIDER.newMessageBuilder().setTopic("GrpcFifo").setMessageGroup(g).setBody(utf8(g + "#" + i))
                    .build());
            }
        }
        List<MessageExt> read = readAtLeast(reader("GrpcFifo"), groups.size() * perGroup);
        Map<String, Set<Integer>> queuesOfGroup = new HashMap<>();
        Map<String, List<String>> bodiesOfGroup = new LinkedHashMap<>();
        // per queue in offset order: the reader returns each queue's records by offset
        read.sort((x, y) -> x.getQueueId() != y.getQueueId() ? Integer.compare(x.getQueueId(), y.getQueueId())
            : Long.compare(x.getQueueOffset(), y.getQueueOffset()));
        for (MessageExt m : read) {
            String g = m.getProperty("__SHARDINGKEY");
            queuesOfGroup.computeIfAbsent(g, k -> new java.util.HashSet<>()).add(m.getQueueId());
            bodiesOfGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(body(m));
        }
        assertEquals(Set.copyOf(groups), queuesOfGroup.keySet());
        for (String g : groups) {
            assertEquals(1, queuesOfGroup.get(g).size(), "group " + g + " spread over queues " + queuesOfGroup.get(g));
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < perGroup; i++) {
                expected.add(g + "#" + i);
            }
            assertEquals(expected, bodiesOfGroup.get(g), "group " + g + " out of order");
        }
        assertTrue(queuesOfGroup.values().stream().flatMap(Set::stream).distinct().count() > 1,
            "six groups all hashed to one queue: the queue is not chosen by group");
    }

    @Test
    void delayedMessageIsDeliveredNotBeforeItsTime() throws Exception {
        Producer p = producer(true, "GrpcDelay");
        DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-grpc-delay", "GrpcDelay", "*");
        closing.add(consumer::shutdown);
        long deliverAt = System.currentTimeMillis() + 3000;
        p.send(PROVIDER.newMessageBuilder().setTopic("GrpcDelay").setDeliveryTimestamp(deliverAt)
            .setBody(utf8("later")).build());
        List<MessageExt> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (MessageExt m : consumer.poll(500)) {
                if (body(m).equals("later")) {
                    got.add(m);
                }
            }
            return !got.isEmpty();
        });
        long receivedAt = System.currentTimeMillis();
        assertTrue(receivedAt >= deliverAt, "delivered " + (deliverAt - receivedAt) + " ms early");
        assertTrue(got.get(0).getStoreTimestamp() >= deliverAt, "stored in its topic before it was due");
        assertEquals(Long.toString(deliverAt), got.get(0).getProperty("TIMER_DELIVER_MS"));
    }

    @Test
    void committedTransactionIsDeliveredAndRolledBackOneIsNot() throws Exception {
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration(false)).setTopics("GrpcTx")
            .setTransactionChecker(view -> TransactionResolution.UNKNOWN).build();
        closing.add(p);
        Transaction rolledBack = p.beginTransaction();
        p.send(PROVIDER.newMessageBuilder().setTopic("GrpcTx").setBody(utf8("rolled back")).build(), rolledBack);
        rolledBack.rollback();
        Transaction committed = p.beginTransaction();
        p.send(PROVIDER.newMessageBuilder().setTopic("GrpcTx").setBody(utf8("committed")).build(), committed);
        committed.commit();

        TopicReader reader = reader("GrpcTx");
        List<MessageExt> read = readAtLeast(reader, 1);
        assertEquals(List.of("committed"), read.stream().map(GrpcProducerTest::body).toList());
        // the rollback was decided before the commit: the commit's arrival shows the rolled-back one never will
        read.addAll(reader.readNew());
        assertFalse(read.stream().anyMatch(m -> body(m).equals("rolled back")));
    }

    @Test
    void transactionTheProducerForgotIsCommittedByItsCheckerOverTelemetry() throws Exception {
        Map<String, String> checked = new ConcurrentHashMap<>();
        TransactionChecker checker = view -> {
            checked.put(view.getMessageId().toString(), new String(utf8Of(view.getBody()), StandardCharsets.UTF_8));
            return TransactionResolution.COMMIT;
        };
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration(true)).setTopics("GrpcOrphan")
            .setTransactionChecker(checker).build();
        closing.add(p);
        Transaction forgotten = p.beginTransaction();
        SendReceipt receipt = p.send(PROVIDER.newMessageBuilder().setTopic("GrpcOrphan").setTag("T")
            .setBody(utf8("decided by the check")).build(), forgotten);
        // neither commit() nor rollback(): only the broker's back-check can decide it

        List<MessageExt> read = readAtLeast(reader("GrpcOrphan"), 1);
        assertEquals("decided by the check", body(read.get(0)));
        assertEquals(receipt.getMessageId().toString(), read.get(0).getMsgId());
        assertEquals("decided by the check", checked.get(receipt.getMessageId().toString()),
            "the checker was asked about the message, with its body");
    }

    private static byte[] utf8Of(java.nio.ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void producerOfATopicTheBrokerDoesNotHaveFailsToStart() {
        // the 5.0.7 client wraps the start failure in an IllegalStateException; the cause is the broker's answer
        Exception e = assertThrows(Exception.class, () -> producer(false, "GrpcNoSuchTopic"));
        String messages = causes(e);
        assertTrue(messages.contains("response-code=40402") && messages.contains("GrpcNoSuchTopic does not exist"),
            messages);
    }

    @Test
    void bodyOverTheBrokersMaximumIsRefusedBeforeItIsSent() throws Exception {
        // the client enforces publishing.max_body_size of the broker's settings reply: maxMessageSize, 1 MiB here
        Producer p = producer(false, "GrpcNormal");
        Exception e = assertThrows(Exception.class, () -> p.send(PROVIDER.newMessageBuilder().setTopic("GrpcNormal")
            .setBody(new byte[1024 * 1024 + 1]).build()));
        assertTrue(causes(e).contains("1048576"), causes(e));
        p.send(PROVIDER.newMessageBuilder().setTopic("GrpcNormal").setBody(new byte[1024 * 1024]).build());
    }

    static String causes(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }
}
