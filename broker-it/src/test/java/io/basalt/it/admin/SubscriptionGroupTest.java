package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.subscription.GroupForbidden;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Subscription groups through DefaultMQAdminExt 5.2.0 and the official consumers, against a Basalt broker process. */
class SubscriptionGroupTest {
    private static final String TOPIC = "SubGroupTopic";

    @TempDir
    static Path dir;
    static BrokerHandle broker;
    /** One admin client per test: its connections and pool threads start and stop within the test. */
    DefaultMQAdminExt admin;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerHandle.start(dir, Map.of());
        DefaultMQAdminExt setup = AdminClients.admin(broker.address());
        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-subgroup-test");
        try {
            setup.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, 1, 1, 6));
            for (int i = 0; i < 3; i++) {
                Message m = new Message(TOPIC, "TagA", ("body-" + i).getBytes(StandardCharsets.UTF_8));
                assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
            }
            MessageQueue queue = new MessageQueue(TOPIC, "broker-a", 0);
            // the consume queue is filled just after the sends return
            await().atMost(Duration.ofSeconds(30)).until(() -> setup.maxOffset(queue) == 3);
        } finally {
            producer.shutdown();
            setup.shutdown();
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startAdmin() throws Exception {
        admin = AdminClients.admin(broker.address());
    }

    @AfterEach
    void stopAdmin() {
        if (admin != null) {
            admin.shutdown();
        }
    }

    private static SubscriptionGroupConfig group(String name, boolean consumeEnable) {
        SubscriptionGroupConfig config = new SubscriptionGroupConfig();
        config.setGroupName(name);
        config.setConsumeEnable(consumeEnable);
        config.setRetryQueueNums(2);
        config.setRetryMaxTimes(5);
        return config;
    }

    private static String groupFile() throws Exception {
        return Files.readString(dir.resolve("store/config/subscriptionGroup.json"));
    }

    // DefaultMQPullConsumer is deprecated, but it is the client whose pull hands back the broker's response code
    @SuppressWarnings("deprecation")
    private static DefaultMQPullConsumer startedPullConsumer(String group) throws Exception {
        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer(group);
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName(AdminClients.instanceName());
        consumer.start();
        return consumer;
    }

    @SuppressWarnings("deprecation")
    @Test
    void aDisabledGroupIsRefusedUntilEnabledAndDeletedGroupsAreGone() throws Exception {
        admin.createAndUpdateSubscriptionGroupConfig(broker.address(), group("sg_disabled", false));
        SubscriptionGroupConfig stored = admin.examineSubscriptionGroupConfig(broker.address(), "sg_disabled");
        assertNotNull(stored);
        assertFalse(stored.isConsumeEnable());
        assertEquals(2, stored.getRetryQueueNums());
        assertEquals(5, stored.getRetryMaxTimes());
        assertEquals(group("sg_disabled", false), stored);
        assertTrue(groupFile().contains("\"sg_disabled\""), "the group is in config/subscriptionGroup.json");

        MessageQueue queue = new MessageQueue(TOPIC, "broker-a", 0);
        DefaultMQPullConsumer consumer = startedPullConsumer("sg_disabled");
        try {
            MQBrokerException refused = assertThrows(MQBrokerException.class, () -> consumer.pull(queue, "*", 0, 32));
            assertEquals(ResponseCode.NO_PERMISSION, refused.getResponseCode());
            assertTrue(refused.getErrorMessage().contains("subscription group no permission"), refused.getErrorMessage());

            admin.createAndUpdateSubscriptionGroupConfig(broker.address(), group("sg_disabled", true));
            PullResult found = consumer.pull(queue, "*", 0, 32);
            assertEquals(PullStatus.FOUND, found.getPullStatus());
            assertEquals(3, found.getMsgFoundList().size(), "enabled again, the group gets the messages");
        } finally {
            // before deleting: a running consumer's heartbeat would record its group again
            consumer.shutdown();
        }

        admin.deleteSubscriptionGroup(broker.address(), "sg_disabled");
        assertNull(admin.examineSubscriptionGroupConfig(broker.address(), "sg_disabled"));
        assertFalse(groupFile().contains("\"sg_disabled\""), "the group is gone from the file too");
    }

    @SuppressWarnings("deprecation")
    @Test
    void aGroupForbiddenToReadATopicByTheAdminToolIsRefusedUntilAllowedAgain() throws Exception {
        GroupForbidden forbidden = admin.updateAndGetGroupReadForbidden(broker.address(), "sg_forbidden", TOPIC, false);
        assertEquals(false, forbidden.getReadable());
        assertEquals("sg_forbidden", forbidden.getGroup());
        assertEquals(TOPIC, forbidden.getTopic());
        assertTrue(groupFile().contains("\"sg_forbidden\""), "the forbidden table is in config/subscriptionGroup.json");

        MessageQueue queue = new MessageQueue(TOPIC, "broker-a", 0);
        DefaultMQPullConsumer consumer = startedPullConsumer("sg_forbidden");
        try {
            MQBrokerException refused = assertThrows(MQBrokerException.class, () -> consumer.pull(queue, "*", 0, 32));
            assertEquals(ResponseCode.NO_PERMISSION, refused.getResponseCode());
            assertTrue(refused.getErrorMessage().contains("is forbidden for topic[" + TOPIC + "]"), refused.getErrorMessage());

            assertEquals(true, admin.updateAndGetGroupReadForbidden(broker.address(), "sg_forbidden", TOPIC, true)
                .getReadable());
            PullResult found = consumer.pull(queue, "*", 0, 32);
            assertEquals(PullStatus.FOUND, found.getPullStatus());
            assertEquals(3, found.getMsgFoundList().size(), "allowed again, the group gets the messages");
        } finally {
            consumer.shutdown();
        }
        assertEquals(true, admin.updateAndGetGroupReadForbidden(broker.address(), "sg_forbidden", TOPIC, null)
            .getReadable(), "a null readable only asks");
    }

    @Test
    void aConsumersHeartbeatRecordsItsGroupWithRocketMqsDefaults() throws Exception {
        DefaultLitePullConsumer consumer = AdminClients.litePull(broker.address(), "sg_auto", TOPIC);
        try {
            SubscriptionGroupConfig recorded = await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.examineSubscriptionGroupConfig(broker.address(), "sg_auto"), c -> c != null);
            SubscriptionGroupConfig defaults = new SubscriptionGroupConfig();
            defaults.setGroupName("sg_auto");
            assertEquals(defaults, recorded);
            assertNotNull(admin.examineTopicConfig(broker.address(), "%RETRY%sg_auto"), "its retry topic exists");
        } finally {
            consumer.shutdown();
        }
    }
}
