package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.common.test.LeakCheckExtension;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer retries against a broker process with the official 5.2.0 push consumer: a concurrent consumer's
 * RECONSUME_LATER comes back on the delay-level back-off ({@code 3 + reconsumeTimes}, here with a short
 * {@code messageDelayLevel}) and, its retries used up, lands in {@code %DLQ%<group>}; an orderly consumer's poison
 * message reaches the DLQ and the queue moves on. Times are checked only as "no earlier than".
 */
@LeakCheckExtension.AllowThreads(value = "ConsumeMessageScheduledThread_1",
    because = "an orderly DefaultMQPushConsumer 5.2.0 also starts a ConsumeMessagePopOrderlyService, whose scheduler"
        + " (named without the group, unlike the orderly service's own, which must stop) its shutdown() never stops")
class RetryAndDlqTest {
    /** Levels 3, 4 and 5 (the first three retries) wait 1 s, 2 s and 3 s. */
    private static final String DELAY_LEVELS = "1s 1s 1s 2s 3s";
    private static final long[] BACK_OFF_MS = {1000, 2000, 3000};

    @TempDir
    Path dir;
    BrokerProcess broker;
    DefaultMQProducer producer;
    final List<Runnable> cleanups = new ArrayList<>();

    private void startBroker(Map<String, String> conf) throws Exception {
        broker = BrokerProcess.create(dir, conf);
        broker.start();
        producer = Clients.producer(broker, "pg-retry-test");
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).run();
        }
        if (producer != null) {
            producer.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** One delivery to the listener: the reconsume count it had and when it arrived. */
    private record Delivery(int reconsumeTimes, long atMs, String offsetMsgId) {
    }

    private DefaultMQPushConsumer pushConsumer(String group, String topic) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setPersistConsumerOffsetInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        return c;
    }

    @Test
    void aRejectedMessageIsRetriedOnTheBackOffScheduleThenDeadLettered() throws Exception {
        startBroker(Map.of("messageDelayLevel", DELAY_LEVELS));
        String topic = "RetryBackOff";
        String group = "cg-backoff";
        SendResult sent = producer.send(new Message(topic, "TagA", "poison-key", "poison".getBytes(StandardCharsets.UTF_8)));
        assertEquals(SendStatus.SEND_OK, sent.getSendStatus());
        List<Delivery> deliveries = Collections.synchronizedList(new ArrayList<>());
        DefaultMQPushConsumer c = pushConsumer(group, topic);
        c.setMaxReconsumeTimes(3);
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            long now = System.currentTimeMillis();
            msgs.forEach(m -> deliveries.add(new Delivery(m.getReconsumeTimes(), now,
                ((MessageClientExt) m).getOffsetMsgId())));
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        });
        c.start();
        cleanups.add(c::shutdown);

        await().atMost(Duration.ofSeconds(45)).until(() -> metric("basalt_consumer_dlq_total", group) == 1);

        List<Delivery> seen = List.copyOf(deliveries);
        assertEquals(List.of(0, 1, 2, 3), seen.stream().map(Delivery::reconsumeTimes).toList(),
            "the first delivery and maxReconsumeTimes (3) retries, then the DLQ");
        for (int k = 1; k < seen.size(); k++) {
            long waited = seen.get(k).atMs() - seen.get(k - 1).atMs();
            assertTrue(waited >= BACK_OFF_MS[k - 1], "retry " + k + " came " + waited + " ms after the previous "
                + "delivery, before its back-off of level " + (2 + k) + " (" + BACK_OFF_MS[k - 1] + " ms)");
        }
        assertEquals(3, metric("basalt_consumer_retries_total", group));

        MessageExt dead = readOne("%DLQ%" + group);
        assertEquals("poison", new String(dead.getBody(), StandardCharsets.UTF_8));
        assertEquals(4, dead.getReconsumeTimes());
        assertEquals(topic, dead.getProperty("RETRY_TOPIC"));
        assertEquals(seen.get(0).offsetMsgId(), dead.getProperty("ORIGIN_MESSAGE_ID"),
            "the offsetMsgId of the record first consumed");
        assertEquals(sent.getMsgId(), dead.getProperty("UNIQ_KEY"));
        assertEquals("0", dead.getProperty("DELAY"));
        assertEquals("false", dead.getProperty("WAIT"));
        assertEquals("TagA", dead.getTags());
        assertEquals("poison-key", dead.getKeys());
        assertEquals(0, dead.getQueueId());
    }

    @Test
    void anOrderlyConsumersPoisonMessageReachesTheDlqAndTheQueueMovesOn() throws Exception {
        startBroker(Map.of());
        String topic = "OrderlyPoison";
        String group = "cg-orderly-poison";
        assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, "TagA", "warm-up", new byte[] {1}))
            .getSendStatus());
        List<String> consumed = Collections.synchronizedList(new ArrayList<>());
        List<Integer> poisonDeliveries = Collections.synchronizedList(new ArrayList<>());
        DefaultMQPushConsumer c = pushConsumer(group, topic);
        c.setMaxReconsumeTimes(2);
        c.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                if ("poison".equals(m.getKeys())) {
                    poisonDeliveries.add(m.getReconsumeTimes());
                    return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                }
                consumed.add(m.getKeys());
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        cleanups.add(c::shutdown);
        await().atMost(Duration.ofSeconds(30)).until(() -> consumed.contains("warm-up"));
        await().atMost(Duration.ofSeconds(30)).until(() -> c.getDefaultMQPushConsumerImpl().getRebalanceImpl()
            .getProcessQueueTable().entrySet().stream()
            .filter(e -> e.getKey().getTopic().equals(topic) && e.getKey().getQueueId() == 0)
            .anyMatch(e -> e.getValue().isLocked()));
        MessageQueueSelector queueZero = (queues, message, arg) -> queues.stream()
            .filter(q -> q.getQueueId() == 0).findFirst().orElseThrow();
        SendResult poison = producer.send(new Message(topic, "TagA", "poison", "bad".getBytes(StandardCharsets.UTF_8)),
            queueZero, null);
        assertEquals(SendStatus.SEND_OK, poison.getSendStatus());
        assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, "TagA", "next", new byte[] {2}), queueZero,
            null).getSendStatus());

        await().atMost(Duration.ofSeconds(30)).until(() -> consumed.contains("next"));

        assertEquals(List.of(0, 1, 2), List.copyOf(poisonDeliveries),
            "consumed in place until reconsumeTimes reached maxReconsumeTimes (2), then given up");
        assertEquals(1, metric("basalt_consumer_dlq_total", group));
        MessageExt dead = readOne("%DLQ%" + group);
        assertEquals("bad", new String(dead.getBody(), StandardCharsets.UTF_8));
        assertEquals(poison.getMsgId(), dead.getProperty("UNIQ_KEY"));
        assertEquals(topic, dead.getProperty("RETRY_TOPIC"));
        assertEquals("-1", dead.getProperty("DELAY"), "the DLQ write cancelled the client's delay level 5");
        assertEquals(3, dead.getReconsumeTimes(), "the client gives up with RECONSUME_TIME = reconsumeTimes + 1 = 3");
    }

    /** The one message of {@code topic}, read from its first offset by a lite pull consumer. */
    private MessageExt readOne(String topic) throws Exception {
        DefaultLitePullConsumer reader = Clients.litePull(broker, "dlq-reader-" + Math.abs(topic.hashCode()), topic, "*");
        try {
            List<MessageExt> got = Clients.pollAtLeast(reader, 1, 30_000);
            assertEquals(1, got.size(), "messages in " + topic);
            return got.get(0);
        } finally {
            reader.shutdown();
        }
    }

    /** A counter of the broker's metrics for {@code group} (0 when the broker has none yet). */
    private long metric(String name, String group) throws IOException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{group=\"" + group + "\"}") + " (\\S+)$")
            .matcher(scrape());
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    /** The Prometheus text by a plain HTTP/1.0 request (java.net.http's client leaves a selector thread behind). */
    private String scrape() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(5_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            return body < 0 ? "" : response.substring(body + 4);
        }
    }
}
