package io.basalt.it.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import org.apache.rocketmq.client.consumer.AckStatus;
import org.apache.rocketmq.client.consumer.PopResult;
import org.apache.rocketmq.client.consumer.PopStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Order POP against a real broker with the official 5.2.0 client's POP call ({@code order=true}): each queue's
 * messages in queue order; a queue with an un-acked batch gives nothing to another attempt until the batch is acked;
 * a retried attempt gets the same messages with the same receipts; un-acked messages come back after their invisible
 * time with {@code reconsumeTimes} raised (from {@code orderCountInfo}); the state is written to
 * {@code config/consumerOrderInfo.json} periodically.
 */
class OrderPopTest {
    static final String GROUP = "cg-order-pop";

    @TempDir
    Path dir;

    @Test
    void aBatchBlocksItsQueueUntilAckedAndTheSameAttemptIsReplayed() throws Exception {
        String topic = "OrderPopBlock";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("block"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-order-block");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 3; i++) {
                    send(producer, topic, 0, "q0-" + i);
                    send(producer, topic, 1, "q1-" + i);
                }
                pop.awaitQueued(topic, 0, 3);
                pop.awaitQueued(topic, 1, 3);
                List<MessageExt> first = popAll(pop, topic, 6, 60_000, "attempt-1");
                Map<Integer, List<String>> byQueue = byQueue(first);
                assertEquals(List.of("q0-0", "q0-1", "q0-2"), byQueue.get(0), "queue order");
                assertEquals(List.of("q1-0", "q1-1", "q1-2"), byQueue.get(1), "queue order");
                for (MessageExt m : first) {
                    assertEquals(0, m.getReconsumeTimes());
                    assertTrue(m.getProperty(MessageConst.PROPERTY_POP_CK).split(" ")[3].equals("999"),
                        "order receipts name revive queue 999: " + m.getProperty(MessageConst.PROPERTY_POP_CK));
                }

                PopResult replay = pop.popOrder(topic, 32, 60_000, 0, "attempt-1");
                assertEquals(PopStatus.FOUND, replay.getPopStatus(), "the same attempt is replayed");
                assertEquals(receipts(first), receipts(replay.getMsgFoundList()), "the same messages, same receipts");

                send(producer, topic, 0, "q0-3");
                assertEquals(PopStatus.POLLING_NOT_FOUND, pop.popOrder(topic, 32, 60_000, 0, "attempt-2").getPopStatus(),
                    "both queues are blocked by the un-acked batch");

                for (MessageExt m : first) {
                    if (m.getQueueId() == 0) {
                        assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                    }
                }
                PopResult next = pop.popOrder(topic, 32, 60_000, 1000, "attempt-3");
                assertEquals(PopStatus.FOUND, next.getPopStatus());
                assertEquals(List.of("q0-3"), bodies(next.getMsgFoundList()), "queue 0 is free, queue 1 still blocked");

                Path saved = broker.storeDir().resolve("config").resolve("consumerOrderInfo.json");
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(saved)
                    && Files.readString(saved).contains(topic + "@" + GROUP));
            } finally {
                producer.shutdown();
            }
        }
    }

    @Test
    void unAckedMessagesComeBackInOrderWithMoreReconsumeTimes() throws Exception {
        String topic = "OrderPopAgain";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("again"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-order-again");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 3; i++) {
                    send(producer, topic, 0, "m" + i);
                }
                pop.awaitQueued(topic, 0, 3);
                List<MessageExt> first = popAll(pop, topic, 3, 3000, "first");
                assertEquals(AckStatus.OK, pop.ack(first.get(0)).getStatus());
                List<MessageExt> again = new ArrayList<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    PopResult r = pop.popOrder(topic, 32, 60_000, 1000, "second");
                    if (r.getPopStatus() == PopStatus.FOUND) {
                        again.addAll(r.getMsgFoundList());
                    }
                    return !again.isEmpty();
                });
                assertEquals(List.of("m1", "m2"), bodies(again), "the un-acked messages, in order, acked one not");
                for (MessageExt m : again) {
                    assertEquals(1, m.getReconsumeTimes(), "delivered once before");
                }
            } finally {
                producer.shutdown();
            }
        }
    }

    private static List<MessageExt> popAll(PopClient pop, String topic, int count, long invisibleMs, String attemptId) {
        List<MessageExt> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            PopResult r = pop.popOrder(topic, 32, invisibleMs, 1000, attemptId);
            if (r.getPopStatus() == PopStatus.FOUND) {
                got.clear();
                got.addAll(r.getMsgFoundList());
            }
            return got.size() >= count;
        });
        return got;
    }

    private static Map<Integer, List<String>> byQueue(List<MessageExt> messages) {
        Map<Integer, List<String>> byQueue = new TreeMap<>();
        messages.stream().sorted((a, b) -> Long.compare(a.getQueueOffset(), b.getQueueOffset()))
            .forEach(m -> byQueue.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>()).add(body(m)));
        return byQueue;
    }

    private static List<String> receipts(List<MessageExt> messages) {
        return messages.stream().map(m -> m.getProperty(MessageConst.PROPERTY_POP_CK)).sorted().toList();
    }

    private static List<String> bodies(List<MessageExt> messages) {
        return messages.stream().map(OrderPopTest::body).toList();
    }

    private static PopClient client(DefaultMQProducer producer, BrokerProcess broker) {
        return new PopClient(producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl(),
            broker.brokerName(), broker.address(), GROUP);
    }

    private static void send(DefaultMQProducer producer, String topic, int queueId, String body) throws Exception {
        assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, body.getBytes(StandardCharsets.UTF_8)),
            (mqs, msg, arg) -> mqs.get(queueId), null).getSendStatus());
    }

    private static String body(MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }
}
