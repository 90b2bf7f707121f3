package io.basalt.it.admin;

import io.basalt.it.Clients;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official 5.2.0 {@code DefaultMQPushConsumer} in POP mode end to end: {@code mqadmin setConsumeMode -m POP},
 * a consumer with {@code clientRebalance=false} and a concurrent listener consumes every message; a message its
 * listener answers RECONSUME_LATER comes again (the client's CHANGE_MESSAGE_INVISIBLETIME with its first delay
 * level, 10 s) with reconsumeTimes 1; a PULL-mode push consumer of another group on the same topic gets everything
 * too.
 */
class PopPushConsumerTest {
    private static final String TOPIC = "PopPushTopic";
    private static final String POP_GROUP = "cg-push-pop";
    private static final String PULL_GROUP = "cg-push-pull";

    @TempDir
    Path dir;

    @Test
    void aPopPushConsumerGetsEveryMessageAndAgainTheOnesItAsksToReconsume() throws Exception {
        List<AutoCloseable> cleanups = new ArrayList<>();
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            String addr = broker.address();
            try {
                assertTrue(MqAdmin.run("updateTopic", "-n", addr, "-b", addr, "-t", TOPIC, "-r", "4", "-w", "4")
                    .contains("success"));
                assertTrue(MqAdmin.run("setConsumeMode", "-n", addr, "-b", addr, "-t", TOPIC, "-g", POP_GROUP,
                    "-m", "POP", "-q", "0").contains("success"));

                Set<String> popReceived = ConcurrentHashMap.newKeySet();
                Map<String, Integer> redeliveredTimes = new ConcurrentHashMap<>();
                AtomicInteger laterAnswers = new AtomicInteger();
                DefaultMQPushConsumer pop = consumer(addr, POP_GROUP, false, (msgs, ctx) -> {
                    for (var m : msgs) {
                        if (m.getKeys().equals("key-later") && m.getReconsumeTimes() == 0) {
                            laterAnswers.incrementAndGet();
                            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                        }
                        if (m.getKeys().equals("key-later")) {
                            redeliveredTimes.put(m.getKeys(), m.getReconsumeTimes());
                        }
                        popReceived.add(m.getKeys());
                    }
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                cleanups.add(() -> Clients.shutdownPushConsumer(pop));
                Set<String> pullReceived = ConcurrentHashMap.newKeySet();
                DefaultMQPushConsumer pull = consumer(addr, PULL_GROUP, true, (msgs, ctx) -> {
                    msgs.forEach(m -> pullReceived.add(m.getKeys()));
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                cleanups.add(pull::shutdown);
                await().atMost(Duration.ofSeconds(30)).until(() -> pop.getDefaultMQPushConsumerImpl()
                    .getRebalanceImpl().getPopProcessQueueTable().containsKey(new MessageQueue(TOPIC, "broker-a", -1)));

                DefaultMQProducer producer = AdminClients.producer(addr, "pg-push-pop");
                cleanups.add(producer::shutdown);
                Set<String> sent = ConcurrentHashMap.newKeySet();
                for (int i = 0; i < 20; i++) {
                    String key = i == 7 ? "key-later" : "key-" + i;
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "TagA", key,
                        ("body-" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
                    sent.add(key);
                }
                await().atMost(Duration.ofSeconds(90)).until(() -> popReceived.containsAll(sent));
                assertTrue(laterAnswers.get() >= 1);
                assertEquals(1, redeliveredTimes.get("key-later"), "delivered again after RECONSUME_LATER");
                await().atMost(Duration.ofSeconds(60)).until(() -> pullReceived.containsAll(sent));
            } finally {
                for (int i = cleanups.size() - 1; i >= 0; i--) {
                    cleanups.get(i).close();
                }
            }
        }
    }

    private static DefaultMQPushConsumer consumer(String addr, String group, boolean clientRebalance,
                                                  MessageListenerConcurrently listener) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(addr);
        consumer.setInstanceName(AdminClients.instanceName());
        consumer.setClientRebalance(clientRebalance);
        consumer.setPollNameServerInterval(1000);
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener(listener);
        consumer.start();
        return consumer;
    }
}
