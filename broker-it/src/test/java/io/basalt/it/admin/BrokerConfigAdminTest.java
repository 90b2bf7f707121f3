package io.basalt.it.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerProcess;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.DataVersion;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mqadmin getBrokerConfig} / {@code updateBrokerConfig} and {@code DefaultMQAdminExt} against a Basalt broker:
 * the configuration is listed without secrets, a live key changes what the broker does at once and is kept in the
 * broker's own file (its comments too) across a restart, and what cannot be applied is refused by name.
 */
class BrokerConfigAdminTest {
    @TempDir
    Path dir;

    @Test
    void aLiveUpdateChangesBehaviourAtOnceAndSurvivesARestartInTheCommentedFile() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir, Map.of("metricsAuthToken", "0123456789abcdef-secret"))) {
            Path conf = dir.resolve("broker.conf");
            String original = "# the operator's note: keep me\n" + Files.readString(conf);
            Files.writeString(conf, original);
            broker.start();

            String listed = MqAdmin.run("getBrokerConfig", "-b", broker.address());
            assertTrue(listed.lines().anyMatch(l -> l.startsWith("autoCreateTopicEnable") && l.trim().endsWith("true")), listed);
            assertFalse(listed.contains("0123456789abcdef-secret"), listed);
            assertEquals(0, version(broker.address()).getCounter().get());

            assertSendsToNewTopic(broker.address(), "BeforeUpdate", true);
            String updated = MqAdmin.run("updateBrokerConfig", "-b", broker.address(), "-k", "autoCreateTopicEnable",
                "-v", "false");
            assertTrue(updated.contains("update broker config success, " + broker.address()), updated);
            assertSendsToNewTopic(broker.address(), "AfterUpdate", false);
            assertEquals(1, version(broker.address()).getCounter().get());

            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            try {
                assertEquals("false", admin.getBrokerConfig(broker.address()).getProperty("autoCreateTopicEnable"));
            } finally {
                admin.shutdown();
            }
            assertEquals(original.replace("autoCreateTopicEnable=true", "autoCreateTopicEnable=false"),
                Files.readString(conf));

            broker.stopGracefully();
            broker.start();
            admin = AdminClients.admin(broker.address());
            try {
                assertEquals("false", admin.getBrokerConfig(broker.address()).getProperty("autoCreateTopicEnable"));
            } finally {
                admin.shutdown();
            }
            assertSendsToNewTopic(broker.address(), "AfterRestart", false);
            assertTrue(Files.readString(conf).startsWith("# the operator's note: keep me\n"));
        }
    }

    @Test
    void whatCannotBeAppliedIsRefusedByName() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("refusals"))) {
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            try {
                MQBrokerException restart = assertThrows(MQBrokerException.class,
                    () -> admin.updateBrokerConfig(broker.address(), props("autoCreateTopicEnable", "false",
                        "listenPort", "10999")));
                assertEquals(ResponseCode.SYSTEM_ERROR, restart.getResponseCode());
                assertTrue(restart.getErrorMessage().contains("listenPort needs a restart"), restart.getErrorMessage());

                MQBrokerException blacklisted = assertThrows(MQBrokerException.class,
                    () -> admin.updateBrokerConfig(broker.address(), props("brokerConfigPath", "elsewhere/x")));
                assertEquals(ResponseCode.NO_PERMISSION, blacklisted.getResponseCode());
                assertEquals("Can not update config in black list.", blacklisted.getErrorMessage());

                MQBrokerException unknown = assertThrows(MQBrokerException.class,
                    () -> admin.updateBrokerConfig(broker.address(), props("autoCreateTopicEnabled", "false")));
                assertTrue(unknown.getErrorMessage().contains("did you mean autoCreateTopicEnable?"), unknown.getErrorMessage());

                MQBrokerException invalid = assertThrows(MQBrokerException.class,
                    () -> admin.updateBrokerConfig(broker.address(), props("autoCreateSubscriptionGroup", "yes please")));
                assertTrue(invalid.getErrorMessage().contains("autoCreateSubscriptionGroup=yes please"),
                    invalid.getErrorMessage());

                assertEquals("true", admin.getBrokerConfig(broker.address()).getProperty("autoCreateTopicEnable"));
                assertEquals(0, version(broker.address()).getCounter().get());

                // retention's keys apply live (the clean service's next round), so they are taken, not refused
                admin.updateBrokerConfig(broker.address(), props("deleteWhen", "05;17", "diskMaxUsedSpaceRatio", "70"));
                Properties after = admin.getBrokerConfig(broker.address());
                assertEquals("05;17", after.getProperty("deleteWhen"));
                assertEquals("70", after.getProperty("diskMaxUsedSpaceRatio"));
                assertEquals(1, version(broker.address()).getCounter().get());
            } finally {
                admin.shutdown();
            }
        }
    }

    @Test
    void brokerPermissionMasksRoutesAtOnceAndWithoutReadPullsAreRefused() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("permission"))) {
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            DefaultMQPullConsumer consumer = new DefaultMQPullConsumer("cg-permission");
            try {
                assertTrue(MqAdmin.run("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", "PermTopic")
                    .contains("success"));
                assertEquals(6, admin.examineTopicRouteInfo("PermTopic").getQueueDatas().get(0).getPerm());

                admin.updateBrokerConfig(broker.address(), props("brokerPermission", "4"));
                assertEquals(4, admin.examineTopicRouteInfo("PermTopic").getQueueDatas().get(0).getPerm());
                assertEquals("4", admin.getBrokerConfig(broker.address()).getProperty("brokerPermission"));

                admin.updateBrokerConfig(broker.address(), props("brokerPermission", "2"));
                assertEquals(2, admin.examineTopicRouteInfo("PermTopic").getQueueDatas().get(0).getPerm());
                consumer.setNamesrvAddr(broker.address());
                consumer.setInstanceName("permission-" + System.nanoTime());
                consumer.start();
                MQBrokerException refused = assertThrows(MQBrokerException.class, () -> consumer.pull(
                    new MessageQueue("PermTopic", "broker-a", 0), "*", 0, 32));
                assertEquals(ResponseCode.NO_PERMISSION, refused.getResponseCode());
                assertTrue(refused.getErrorMessage().contains("pulling message is forbidden"), refused.getErrorMessage());

                admin.updateBrokerConfig(broker.address(), props("brokerPermission", "6"));
                assertEquals(6, admin.examineTopicRouteInfo("PermTopic").getQueueDatas().get(0).getPerm());
            } finally {
                consumer.shutdown();
                admin.shutdown();
            }
        }
    }

    private static Properties props(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return properties;
    }

    /** The DataVersion in GET_BROKER_CONFIG's response header {@code version}, read as RocketMQ's class. */
    static DataVersion version(String address) throws Exception {
        NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
        client.start();
        try {
            RemotingCommand response = client.invokeSync(address,
                RemotingCommand.createRequestCommand(RequestCode.GET_BROKER_CONFIG, null), 5_000);
            assertEquals(ResponseCode.SUCCESS, response.getCode());
            return DataVersion.decode(response.getExtFields().get("version").getBytes(StandardCharsets.UTF_8),
                DataVersion.class);
        } finally {
            client.shutdown();
        }
    }

    private static void assertSendsToNewTopic(String address, String topic, boolean accepted) throws Exception {
        DefaultMQProducer producer = AdminClients.producer(address, "pg-config-" + topic);
        try {
            Message message = new Message(topic, "body".getBytes(StandardCharsets.UTF_8));
            if (accepted) {
                assertEquals(SendStatus.SEND_OK, producer.send(message).getSendStatus());
            } else {
                Exception refused = assertThrows(Exception.class, () -> producer.send(message));
                assertTrue(String.valueOf(refused.getMessage()).contains(topic), String.valueOf(refused.getMessage()));
            }
        } finally {
            producer.shutdown();
        }
    }
}
