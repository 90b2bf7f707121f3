package io.basalt.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
        // the reader may look the route up (SUB is enough), not publish: its producer's settings or its send are refused
        Exception e = assertThrows(Exception.class, () -> producer(signedBy("orderReader", "readerSecret"))
            .send(message("orders")));
        String messages = causes(e);
        assertTrue(messages.contains("PERMISSION_DENIED") && messages.contains("orderReader")
            && messages.contains("topic:orders"), messages);
    }

    @Test
    void aWrongSecretIsRefusedUnauthenticated() throws Exception {
        Exception e = assertThrows(Exception.class, () -> producer(signedBy("orderProducer", "notTheSecret"))
            .send(message("orders")));
        String messages = causes(e);
        assertTrue(messages.contains("UNAUTHENTICATED") && messages.contains("orderProducer"), messages);
    }
}
