package io.basalt.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * The official RocketMQ 5.x Java SDK (rocketmq-client-java 5.0.7) with {@code SessionCredentialsProvider} against a
 * broker process with ACL 1.0 on: the SDK's signature is verified on the gRPC endpoint, an account with PUB on the
 * topic sends, an account without it is refused gRPC PERMISSION_DENIED naming the account and the topic, a wrong
 * secret UNAUTHENTICATED, and the refusals reach the SDK's caller.
 */
class GrpcAclTest {
    private static final String ACL = """
        globalWhiteRemoteAddresses: []
        accounts:
          - accessKey: orderProducer
            secretKey: s3cretOrders
            defaultTopicPerm: DENY
            defaultGroupPerm: DENY
            topicPerms:
              - orders=PUB
          - accessKey: orderReader
            secretKey: readerSecret
            defaultTopicPerm: DENY
            defaultGroupPerm: DENY
            topicPerms:
              - orders=SUB
          - accessKey: opsAdmin1
            secretKey: opsSecret99
            admin: true
        """;
    private static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();

    @TempDir
    Path dir;

    private BrokerProcess broker;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        Path aclFile = dir.resolve("home/conf/plain_acl.yml");
        Files.createDirectories(aclFile.getParent());
        Files.writeString(aclFile, ACL);
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of("aclEnable", "true"))
            .withJvmOptions("-Drocketmq.home.dir=" + dir.resolve("home"));
        broker.start();
        DefaultMQAdminExt admin = admin();
        try {
            admin.createTopic("TBW102", "orders", 4, Map.of());
        } finally {
            admin.shutdown();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        broker.close();
    }

    private DefaultMQAdminExt admin() throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(new AclClientRPCHook(new SessionCredentials("opsAdmin1",
            "opsSecret99")), 5000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        return admin;
    }

    private ClientConfiguration signedBy(String accessKey, String secretKey) {
        return ClientConfiguration.newBuilder().setEndpoints(broker.grpcAddress()).enableSsl(false)
            .setCredentialProvider(new StaticSessionCredentialsProvider(accessKey, secretKey))
            .setRequestTimeout(Duration.ofSeconds(10)).build();
    }

    private Producer producer(ClientConfiguration configuration, String... topics) throws Exception {
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration).setTopics(topics).build();
        closing.add(p);
        return p;
    }

    private static Message message(String topic) {
        return PROVIDER.newMessageBuilder().setTopic(topic).setBody("hello".getBytes(StandardCharsets.UTF_8)).build();
    }

    private static String causes(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }

    @Test
    void anAccountWithPubSends() throws Exception {
        Producer p = producer(signedBy("orderProducer", "s3cretOrders"), "orders");
        SendReceipt receipt = p.send(message("orders"));
        assertNotNull(receipt.getMessageId());
        DefaultMQAdminExt admin = admin();
        try {
            TopicStatsTable stats = admin.examineTopicStats("orders");
            assertEquals(1L, stats.getOffsetTable().values().stream().mapToLong(s -> s.getMaxOffset()).sum(),
                "the message is stored");
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void anAccountWithoutPubIsRefusedPermissionDenied() throws Exception {
        // the reader may look the route up (SUB is enough), not publish: once the route names the topic, the SDK
        // announces it as a publishing topic in its Telemetry settings, which are refused PERMISSION_DENIED naming
        // the account and the topic, as RocketMQ's proxy refuses them; the SDK then fails the send (its route fetch
        // waits for settings that never come), and nothing is stored
        assertThrows(Exception.class, () -> producer(signedBy("orderReader", "readerSecret")).send(message("orders")));
        String refusal = lastLine(Path.of(System.getProperty("user.home"), "logs", "rocketmq", "rocketmq-client.log"),
            "PERMISSION_DENIED");
        assertTrue(refusal.contains("orderReader") && refusal.contains("topic:orders"), refusal);
        assertTrue(aclRefusals() >= 1, "the refusal is counted");
        DefaultMQAdminExt admin = admin();
        try {
            assertEquals(0L, admin.examineTopicStats("orders").getOffsetTable().values().stream()
                .mapToLong(o -> o.getMaxOffset()).sum(), "nothing stored");
        } finally {
            admin.shutdown();
        }
    }

    /** The SDK's log line naming {@code status} last (the SDK logs a refused Telemetry stream there). */
    private static String lastLine(Path log, String status) throws IOException {
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(status)).reduce((a, b) -> b).orElse("no " + status + " in " + log);
        }
    }

    /** basalt_grpc_responses_total with code "acl", summed over the RPCs. */
    private double aclRefusals() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("(?m)^basalt_grpc_responses_total\\{[^}]*code=\"acl\"[^}]*\\} ([0-9.eE+-]+)$")
                .matcher(text);
            double sum = 0;
            while (m.find()) {
                sum += Double.parseDouble(m.group(1));
            }
            return sum;
        }
    }

    @Test
    void aWrongSecretIsRefusedUnauthenticated() throws Exception {
        Exception e = assertThrows(Exception.class, () -> producer(signedBy("orderProducer", "notTheSecret"))
            .send(message("orders")));
        String messages = causes(e);
        assertTrue(messages.contains("UNAUTHENTICATED") && messages.contains("orderProducer"), messages);
    }
}
