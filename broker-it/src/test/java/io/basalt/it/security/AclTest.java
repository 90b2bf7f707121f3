package io.basalt.it.security;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.AclConfig;
import org.apache.rocketmq.common.PlainAccessConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.body.ClusterAclVersionInfo;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * ACL 1.0 against a broker process with {@code aclEnable=true}, with the official 5.2.0 client, its
 * {@code AclClientRPCHook} and its admin API ({@code mqadmin updateAclConfig / deleteAclConfig /
 * clusterAclConfigVersion / updateGlobalWhiteAddr}): what RocketMQ lets in passes, what it refuses is refused with its
 * code (1, an AclException), the stricter admin rule holds, and the files are reloaded while clients run.
 */
class AclTest {
    private static final String ACL = """
        globalWhiteRemoteAddresses: []
        accounts:
          - accessKey: orderProducer
            secretKey: s3cretOrders
            admin: false
            defaultTopicPerm: DENY
            defaultGroupPerm: DENY
            topicPerms:
              - orders=PUB|SUB
            groupPerms:
              - billing=SUB
          - accessKey: opsAdmin1
            secretKey: opsSecret99
            admin: true
        """;

    @TempDir
    Path dir;

    private BrokerProcess broker;
    private Path aclFile;

    @BeforeEach
    void start() throws Exception {
        aclFile = dir.resolve("home/conf/plain_acl.yml");
        Files.createDirectories(aclFile.getParent());
        Files.writeString(aclFile, ACL);
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of("aclEnable", "true"))
            .withJvmOptions("-Drocketmq.home.dir=" + dir.resolve("home"));
        broker.start();
        // the topics exist (created by the admin): refusals are about permissions, not missing topics
        DefaultMQAdminExt admin = admin("opsAdmin1", "opsSecret99");
        try {
            for (String topic : List.of("orders", "payments")) {
                admin.createTopic("TBW102", topic, 4, Map.of());
            }
        } finally {
            admin.shutdown();
        }
    }

    @AfterEach
    void stop() throws Exception {
        broker.close();
    }

    private static RPCHook hook(String accessKey, String secretKey) {
        return new AclClientRPCHook(new SessionCredentials(accessKey, secretKey));
    }

    private DefaultMQProducer producer(RPCHook hook) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("pg-" + System.nanoTime(), hook);
        p.setNamesrvAddr(broker.address());
        p.setInstanceName(Clients.instanceName());
        p.setRetryTimesWhenSendFailed(0);
        p.setSendMsgTimeout(5000);
        p.start();
        return p;
    }

    private DefaultMQAdminExt admin(String accessKey, String secretKey) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(hook(accessKey, secretKey), 5000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        return admin;
    }

    private static Message message(String topic) {
        return new Message(topic, "hello".getBytes(StandardCharsets.UTF_8));
    }

    /** The refusal of a send: the broker's code 1 and RocketMQ's AclException text, whatever the client wraps it in. */
    private static void assertRefused(Exception e, String text) {
        Throwable t = e;
        while (t != null && !(t instanceof MQBrokerException)) {
            t = t.getCause();
        }
        assertTrue(t instanceof MQBrokerException, "not a broker refusal: " + e);
        MQBrokerException refusal = (MQBrokerException) t;
        assertEquals(1, refusal.getResponseCode(), refusal.getErrorMessage());
        assertTrue(refusal.getErrorMessage().contains("org.apache.rocketmq.acl.common.AclException")
            && refusal.getErrorMessage().contains(text), refusal.getErrorMessage());
    }

    @Test
    void allowedSendsAndPullsPassAndEveryRefusalIsRocketMqs() throws Exception {
        DefaultMQProducer allowed = producer(hook("orderProducer", "s3cretOrders"));
        try {
            SendResult r = allowed.send(message("orders"));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            assertRefused(assertThrows(Exception.class, () -> allowed.send(message("payments"))),
                "No default permission for topic:payments");
        } finally {
            allowed.shutdown();
        }

        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("billing", hook("orderProducer", "s3cretOrders"));
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName(Clients.instanceName());
        consumer.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("orders", "*");
        consumer.start();
        try {
            List<MessageExt> got = Clients.pollAtLeast(consumer, 1, 30_000);
            assertEquals(1, got.size(), "the permitted group pulls the permitted topic");
        } finally {
            consumer.shutdown();
        }

        DefaultMQProducer wrongSecret = producer(hook("orderProducer", "notTheSecret"));
        try {
            assertRefused(assertThrows(Exception.class, () -> wrongSecret.send(message("orders"))),
                "Check signature failed for accessKey=orderProducer");
        } finally {
            wrongSecret.shutdown();
        }
        DefaultMQProducer unsigned = producer(null);
        try {
            Exception e = assertThrows(Exception.class, () -> unsigned.send(message("orders")));
            // an unsigned client does not even get a route from a broker that is its own NameServer
            assertTrue(e instanceof MQClientException || e instanceof MQBrokerException, e.toString());
        } finally {
            unsigned.shutdown();
        }
    }

    @Test
    void aGroupWithoutSubCannotPull() throws Exception {
        DefaultMQProducer p = producer(hook("orderProducer", "s3cretOrders"));
        p.send(message("orders"));
        p.shutdown();
        DefaultMQAdminExt admin = admin("orderProducer", "s3cretOrders");
        try {
            // the offset query is RocketMQ 5.3's rule for QUERY_CONSUMER_OFFSET (5.2.0 checks nothing)
            MQBrokerException e = assertThrows(MQBrokerException.class, () -> admin.getDefaultMQAdminExtImpl()
                .getMqClientInstance().getMQClientAPIImpl().queryConsumerOffset(broker.address(),
                    queryOffset("refunds", "orders"), 5000));
            assertEquals(1, e.getResponseCode(), e.getErrorMessage());
            assertTrue(e.getErrorMessage().contains("No default permission for group:refunds"), e.getErrorMessage());
        } finally {
            admin.shutdown();
        }
    }

    private static org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader queryOffset(
        String group, String topic) {
        org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader h =
            new org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(0);
        return h;
    }

    @Test
    void adminCodesNeedAnAdminAccount() throws Exception {
        DefaultMQAdminExt notAdmin = admin("orderProducer", "s3cretOrders");
        try {
            MQClientException create = assertThrows(MQClientException.class,
                () -> notAdmin.createAndUpdateTopicConfig(broker.address(), new org.apache.rocketmq.common.TopicConfig("t2")));
            assertTrue(create.getMessage().contains("Need admin permission for request code=17"), create.getMessage());
            PlainAccessConfig escalate = new PlainAccessConfig();
            escalate.setAccessKey("escalated1");
            escalate.setSecretKey("escalated1secret");
            escalate.setAdmin(true);
            // RocketMQ 5.2.0 lets any signed account do this (ACL admin codes are not admin-only there)
            Exception e = assertThrows(Exception.class, () -> notAdmin.createAndUpdatePlainAccessConfig(broker.address(),
                escalate));
            assertTrue(String.valueOf(e.getMessage()).contains("Need admin permission for request code=50"), e.toString());
            Exception version = assertThrows(Exception.class, () -> notAdmin.examineBrokerClusterAclVersionInfo(
                broker.address()));
            assertTrue(String.valueOf(version.getMessage()).contains("request code=52"), version.toString());
            java.util.Properties live = new java.util.Properties();
            live.setProperty("autoCreateTopicEnable", "false");
            Exception update = assertThrows(Exception.class, () -> notAdmin.updateBrokerConfig(broker.address(), live));
            assertTrue(String.valueOf(update.getMessage()).contains("request code=25"), update.toString());
            assertEquals("true", notAdmin.getBrokerConfig(broker.address()).getProperty("autoCreateTopicEnable"),
                "reading the configuration is open to every signed account (no secrets in it)");
        } finally {
            notAdmin.shutdown();
        }
    }

    @Test
    void theAclAdminCodesWorkWithTheOfficialTool() throws Exception {
        DefaultMQAdminExt admin = admin("opsAdmin1", "opsSecret99");
        try {
            PlainAccessConfig account = new PlainAccessConfig();
            account.setAccessKey("paymentsWriter");
            account.setSecretKey("paymentsSecret");
            account.setDefaultTopicPerm("DENY");
            account.setDefaultGroupPerm("DENY");
            account.setTopicPerms(List.of("payments=PUB"));
            admin.createAndUpdatePlainAccessConfig(broker.address(), account);
            DefaultMQProducer writer = producer(hook("paymentsWriter", "paymentsSecret"));
            try {
                assertEquals(SendStatus.SEND_OK, writer.send(message("payments")).getSendStatus());
            } finally {
                writer.shutdown();
            }
            assertTrue(Files.readString(aclFile).contains("paymentsWriter"), "written to the default file");

            ClusterAclVersionInfo info = admin.examineBrokerClusterAclVersionInfo(broker.address());
            assertTrue(info.getAllAclConfigDataVersion().size() >= 1, "allAclFileVersion is filled (5.2.0 leaves it"
                + " out and its own tool fails)");

            admin.deletePlainAccessConfig(broker.address(), "paymentsWriter");
            DefaultMQProducer deleted = producer(hook("paymentsWriter", "paymentsSecret"));
            try {
                assertRefused(assertThrows(Exception.class, () -> deleted.send(message("payments"))),
                    "No acl config for paymentsWriter");
            } finally {
                deleted.shutdown();
            }

            // a global white address lets an unsigned client in; the tool without -p leaves the path out
            admin.updateGlobalWhiteAddrConfig(broker.address(), "127.0.0.1");
            DefaultMQProducer unsigned = producer(null);
            try {
                assertEquals(SendStatus.SEND_OK, unsigned.send(message("payments")).getSendStatus());
            } finally {
                unsigned.shutdown();
            }
            admin.updateGlobalWhiteAddrConfig(broker.address(), "");
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void theFileIsReloadedWhileClientsRunAndABrokenOneKeepsTheLastGood() throws Exception {
        DefaultMQProducer p = producer(hook("orderProducer", "s3cretOrders"));
        try {
            assertThrows(Exception.class, () -> p.send(message("payments")));
            Files.writeString(aclFile, ACL.replace("- orders=PUB|SUB", "- orders=PUB|SUB\n      - payments=PUB"));
            await().atMost(ofSeconds(20)).ignoreExceptions().until(() ->
                p.send(message("payments")).getSendStatus() == SendStatus.SEND_OK);

            Files.writeString(aclFile, "accounts:\n  - accessKey: short\n");
            // a broken file: the accounts in force stay, and the broker says why it did not reload
            await().atMost(ofSeconds(20)).until(() -> Files.readString(broker.dir().resolve("logs/broker.log"))
                .contains("ACL 1.0 files not reloaded"));
            assertEquals(SendStatus.SEND_OK, p.send(message("payments")).getSendStatus());
        } finally {
            p.shutdown();
        }
    }
}
