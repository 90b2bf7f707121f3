package io.basalt.it.admin;

import io.basalt.it.Clients;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.impl.consumer.RebalanceImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageQueueAssignment;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumption modes and the broker-side assignment with the official 5.2.0 tools and clients: {@code mqadmin
 * setConsumeMode} switches a group to POP, and a push consumer with {@code clientRebalance=false} then gets one
 * whole-broker POP queue (queue id −1) from QUERY_ASSIGNMENT, while a PULL group's consumers share the queues the
 * broker allocates and consume every message; the modes survive a restart; bad requests get RocketMQ's codes.
 */
class ConsumeModeTest {
    private static final String TOPIC = "ModeTopic";
    private static final String POP_GROUP = "cg-mode-pop";
    private static final String PULL_GROUP = "cg-mode-pull";

    @TempDir
    Path dir;
    private final List<AutoCloseable> cleanups = new ArrayList<>();

    private DefaultMQPushConsumer brokerRebalancedConsumer(String ns, String group, Set<String> received)
        throws MQClientException {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(ns);
        consumer.setInstanceName(AdminClients.instanceName());
        consumer.setClientRebalance(false);
        consumer.setPollNameServerInterval(1000);
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.add(m.getKeys()));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        cleanups.add(() -> Clients.shutdownPushConsumer(consumer));
        return consumer;
    }

    private static RebalanceImpl rebalance(DefaultMQPushConsumer consumer) {
        return consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl();
    }

    /** Whether the consumer gave up asking the broker for the topic's assignment (RocketMQ's private flag). */
    @SuppressWarnings("unchecked")
    private static boolean fellBackToClientRebalance(DefaultMQPushConsumer consumer) throws Exception {
        Field field = RebalanceImpl.class.getDeclaredField("topicClientRebalance");
        field.setAccessible(true);
        return ((Map<String, String>) field.get(rebalance(consumer))).containsKey(TOPIC);
    }

    private static Set<MessageQueueAssignment> queryAssignment(DefaultMQAdminExt admin, String addr, String group,
                                                              String clientId, MessageModel model) throws Exception {
        MQClientAPIImpl api = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl();
        return api.queryAssignment(addr, TOPIC, group, clientId, "AVG", model, 10_000);
    }

    private void closeAll() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        cleanups.clear();
    }

    @Test
    void setConsumeModeMakesTheBrokerAssignPopQueuesAndPullGroupsConsumeEveryMessageThroughIt() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir.resolve("broker"), Map.of())) {
            String addr = broker.address();
            try {
                String created = MqAdmin.run("updateTopic", "-n", addr, "-b", addr, "-t", TOPIC, "-r", "4", "-w", "4");
                assertTrue(created.contains("success"), created);
                String set = MqAdmin.run("setConsumeMode", "-n", addr, "-b", addr, "-t", TOPIC, "-g", POP_GROUP,
                    "-m", "POP", "-q", "0");
                assertTrue(set.contains("set consume mode to " + addr + " success."), set);
                assertTrue(set.contains("consume mode[POP] popShareQueueNum[0]"), set);
                String byCluster = MqAdmin.run("setConsumeMode", "-n", addr, "-c", "DefaultCluster", "-t", TOPIC,
                    "-g", PULL_GROUP, "-m", "PULL");
                assertTrue(byCluster.contains("set consume mode to " + addr + " success."), byCluster);

                DefaultMQProducer producer = AdminClients.producer(addr, "pg-mode");
                cleanups.add(producer::shutdown);
                for (int i = 0; i < 40; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "TagA", "key-" + i,
                        ("body-" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
                }

                // the POP group: one queue per broker, id -1, in the client's POP queue table
                DefaultMQPushConsumer popConsumer = brokerRebalancedConsumer(addr, POP_GROUP, ConcurrentHashMap.newKeySet());
                await().atMost(Duration.ofSeconds(30)).until(() ->
                    rebalance(popConsumer).getPopProcessQueueTable().keySet().equals(
                        Set.of(new MessageQueue(TOPIC, "broker-a", -1))));
                assertTrue(rebalance(popConsumer).getProcessQueueTable().keySet().stream()
                    .noneMatch(q -> q.getTopic().equals(TOPIC)), "no PULL queue of the topic");

                // the PULL group: two consumers, each with the queues the broker gave it, together every message
                Set<String> received = ConcurrentHashMap.newKeySet();
                DefaultMQPushConsumer first = brokerRebalancedConsumer(addr, PULL_GROUP, received);
                DefaultMQPushConsumer second = brokerRebalancedConsumer(addr, PULL_GROUP, received);
                await().atMost(Duration.ofSeconds(60)).until(() -> received.size() == 40);
                assertFalse(fellBackToClientRebalance(first));
                assertFalse(fellBackToClientRebalance(second));

                DefaultMQAdminExt admin = AdminClients.admin(addr);
                cleanups.add(admin::shutdown);
                String firstId = first.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
                String secondId = second.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId();
                await().atMost(Duration.ofSeconds(30)).until(() ->
                    admin.examineConsumerConnectionInfo(PULL_GROUP).getConnectionSet().size() == 2);
                Set<MessageQueueAssignment> a = queryAssignment(admin, addr, PULL_GROUP, firstId, MessageModel.CLUSTERING);
                Set<MessageQueueAssignment> b = queryAssignment(admin, addr, PULL_GROUP, secondId, MessageModel.CLUSTERING);
                assertEquals(2, a.size(), a.toString());
                assertEquals(2, b.size(), b.toString());
                Set<MessageQueue> union = new HashSet<>();
                a.forEach(x -> union.add(x.getMessageQueue()));
                b.forEach(x -> union.add(x.getMessageQueue()));
                assertEquals(4, union.size(), "disjoint shares covering the topic: " + a + " " + b);
                assertTrue(a.stream().allMatch(x -> x.getMode() == MessageRequestMode.PULL));
                await().atMost(Duration.ofSeconds(30)).until(() -> rebalance(first).getProcessQueueTable().keySet().stream()
                    .filter(q -> q.getTopic().equals(TOPIC)).collect(Collectors.toSet())
                    .equals(a.stream().map(MessageQueueAssignment::getMessageQueue).collect(Collectors.toSet())));
            } finally {
                closeAll();
            }
        }
    }

    @Test
    void theModesSurviveARestartAndBadRequestsGetRocketMqsCodes() throws Exception {
        Path brokerDir = dir.resolve("restarted");
        try (BrokerHandle broker = BrokerHandle.start(brokerDir, Map.of())) {
            String addr = broker.address();
            DefaultMQAdminExt admin = AdminClients.admin(addr);
            try {
                MqAdmin.run("updateTopic", "-n", addr, "-b", addr, "-t", TOPIC, "-r", "4", "-w", "4");
                admin.setMessageRequestMode(addr, TOPIC, POP_GROUP, MessageRequestMode.POP, 0, 10_000);

                MQClientException retry = assertThrows(MQClientException.class, () ->
                    admin.setMessageRequestMode(addr, "%RETRY%" + POP_GROUP, POP_GROUP, MessageRequestMode.POP, 0, 10_000));
                assertEquals(ResponseCode.NO_PERMISSION, retry.getResponseCode());
                assertTrue(retry.getErrorMessage().contains("retry topic is not allowed to set mode"), retry.getErrorMessage());
                MQClientException noTopic = assertThrows(MQClientException.class, () ->
                    admin.setMessageRequestMode(addr, "NoSuchTopic", POP_GROUP, MessageRequestMode.POP, 0, 10_000));
                assertEquals(ResponseCode.TOPIC_NOT_EXIST, noTopic.getResponseCode());
            } finally {
                admin.shutdown();
            }
            broker.stopGracefully();
        }
        try (BrokerHandle broker = BrokerHandle.start(brokerDir, Map.of())) {
            String addr = broker.address();
            DefaultMQAdminExt admin = AdminClients.admin(addr);
            try {
                // BROADCASTING needs no registered consumer: every queue, with the group's mode
                Set<MessageQueueAssignment> all = queryAssignment(admin, addr, POP_GROUP, "any-client",
                    MessageModel.BROADCASTING);
                assertEquals(4, all.size(), all.toString());
                assertTrue(all.stream().allMatch(x -> x.getMode() == MessageRequestMode.POP), all.toString());
                Set<MessageQueueAssignment> otherGroup = queryAssignment(admin, addr, PULL_GROUP, "any-client",
                    MessageModel.BROADCASTING);
                assertTrue(otherGroup.stream().allMatch(x -> x.getMode() == MessageRequestMode.PULL), otherGroup.toString());
            } finally {
                admin.shutdown();
            }
        }
    }
}
