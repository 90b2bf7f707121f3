package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.alibaba.fastjson.JSONArray;
import com.alibaba.fastjson.JSONObject;
import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official RocketMQ Node.js 5.x SDK ({@code rocketmq-client-nodejs} 1.0.8, run by node) against a Basalt broker
 * process's gRPC endpoint, in plaintext (the SDK's default, {@code sslEnabled} false) and over TLS on the same port.
 * The Node SDK, unlike the Java one, verifies the server's certificate and host name, so the broker serves a
 * certificate for 127.0.0.1 that node is told to trust. A Producer's sends are read back with the official 5.2.0
 * remoting client; a SimpleConsumer receives and acks them.
 *
 * <p>Skipped only when node or npm is not installed (CI installs them).
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client the class's tests share keeps its remoting client for the whole class; the"
        + " client's response-scan pool starts a thread per scan until it reaches its core size, whichever test runs then")
class NodeSdkTest {
    private static final int COUNT = 10;
    private static final long NODE_TIMEOUT_SECONDS = 120;

    @TempDir
    static Path dir;
    static BrokerProcess broker;
    static DefaultMQAdminExt admin;
    static Map<String, String> nodeEnv;

    @BeforeAll
    static void startBroker() throws Exception {
        String missing = NodeSdk.missingTools();
        assumeTrue(missing == null, () -> "Node.js SDK test skipped: " + missing);
        NodeSdk.install();
        LoopbackCertificate cert = LoopbackCertificate.create(dir.resolve("tls"));
        // the SDK's gRPC library (grpc-js) trusts the roots of GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, not node's
        // NODE_EXTRA_CA_CERTS; HOME keeps any default SDK log out of the user's home
        nodeEnv = Map.of("GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", cert.certificate().toString(), "HOME", dir.toString());
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of(
            "tls.server.certPath", cert.certificate().toString(), "tls.server.keyPath", cert.privateKey().toString()));
        broker.start();
        admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        for (String topic : List.of("NodePlain", "NodeTls", "NodeConsumePlain", "NodeConsumeTls")) {
            admin.createTopic("DefaultCluster", topic, 4, Map.of("+message.type", "NORMAL"));
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> admin.examineTopicConfig(broker.address(), topic) != null);
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (admin != null) {
            admin.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Sends COUNT messages with the Node SDK's Producer; returns the sent messages by message id. */
    private static Map<String, JSONObject> send(String tls, String topic) throws Exception {
        String runId = UUID.randomUUID().toString().substring(0, 8);
        JSONArray sent = NodeSdk.script(nodeEnv, NODE_TIMEOUT_SECONDS, "send", broker.grpcAddress(), tls, topic,
            Integer.toString(COUNT), runId).getJSONArray("sent");
        assertEquals(COUNT, sent.size(), sent.toString());
        Map<String, JSONObject> byId = new HashMap<>();
        for (int i = 0; i < sent.size(); i++) {
            JSONObject s = sent.getJSONObject(i);
            byId.put(s.getString("messageId"), s);
        }
        assertEquals(COUNT, byId.size(), "message ids not distinct: " + sent);
        return byId;
    }

    /** The Node SDK's sends are stored as sent: id = UNIQ_KEY, body, tag, keys, user property. */
    private static void assertStored(String topic, Map<String, JSONObject> sent) throws Exception {
        List<MessageExt> read = new ArrayList<>();
        try (TopicReader reader = new TopicReader(broker.address(), topic, broker.brokerName(), 4)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                read.addAll(reader.readNew());
                return read.size() >= COUNT;
            });
            read.addAll(reader.readNew());
        }
        assertEquals(COUNT, read.size(), "stored records");
        for (MessageExt m : read) {
            JSONObject s = sent.get(m.getMsgId());
            assertNotNull(s, "stored message " + m.getMsgId() + " is not one the SDK reported sent: " + sent.keySet());
            assertEquals(s.getString("body"), new String(m.getBody(), StandardCharsets.UTF_8));
            assertEquals(s.getString("tag"), m.getTags());
            assertEquals(String.join(" ", s.getJSONArray("keys").toJavaList(String.class)), m.getKeys());
            assertEquals(s.getString("body").substring(s.getString("body").indexOf('#') + 1), m.getProperty("index"));
            assertEquals(s.getLongValue("offset"), m.getQueueOffset(), "the receipt's offset is the queue offset");
        }
    }

    /** A SimpleConsumer of the Node SDK receives every sent message exactly once, as sent, and acks it. */
    private static void assertReceivedOnce(String tls, String topic, Map<String, JSONObject> sent) throws Exception {
        JSONArray received = NodeSdk.script(nodeEnv, NODE_TIMEOUT_SECONDS, "receive", broker.grpcAddress(), tls, topic,
            "cg-node-" + topic, Integer.toString(COUNT), "60000").getJSONArray("received");
        Map<String, Integer> times = new HashMap<>();
        for (int i = 0; i < received.size(); i++) {
            JSONObject r = received.getJSONObject(i);
            String id = r.getString("messageId");
            times.merge(id, 1, Integer::sum);
            JSONObject s = sent.get(id);
            assertNotNull(s, "received " + id + " that was not sent: " + received);
            assertEquals(s.getString("body"), r.getString("body"));
            assertEquals(s.getString("tag"), r.getString("tag"));
            assertEquals(s.getJSONArray("keys"), r.getJSONArray("keys"));
        }
        Map<String, Integer> once = new HashMap<>();
        sent.keySet().forEach(id -> once.put(id, 1));
        assertEquals(once, times, "every sent message received exactly once");
    }

    @Test
    void plaintextProducerSendsEveryMessageAsSent() throws Exception {
        assertStored("NodePlain", send("plain", "NodePlain"));
    }

    @Test
    void tlsProducerVerifyingTheCertificateSendsOnTheSamePort() throws Exception {
        assertStored("NodeTls", send("tls", "NodeTls"));
    }

    @Test
    void plaintextSimpleConsumerReceivesAndAcksEverySentMessageOnce() throws Exception {
        assertReceivedOnce("plain", "NodeConsumePlain", send("plain", "NodeConsumePlain"));
    }

    @Test
    void tlsSimpleConsumerReceivesAndAcksEverySentMessageOnce() throws Exception {
        assertReceivedOnce("tls", "NodeConsumeTls", send("tls", "NodeConsumeTls"));
    }
}
