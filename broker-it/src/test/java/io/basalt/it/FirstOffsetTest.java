package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a new push consumer group with CONSUME_FROM_LAST_OFFSET (the client's default) starts: at offset 0 while
 * the queue's first message is still in memory (a young queue, RocketMQ's documented behaviour), at the queue's end
 * once it is not. {@code accessMessageInMemoryMaxRatio=0} makes every message but the log's very end count as
 * no longer in memory.
 */
class FirstOffsetTest {
    private static final String TOPIC = "FirstOffsetTopic";

    @TempDir
    Path dir;

    @Test
    void aNewGroupReceivesTheQueueFromZeroWhileItsFirstMessageIsInMemory() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir)) {
            Set<String> received = runNewGroup(broker, expected(0, 8));
            assertEquals(expected(0, 8), received, "the history the young queues hold, and what came after");
        }
    }

    @Test
    void aNewGroupStartsAtTheEndOnceTheFirstMessageIsNoLongerInMemory() throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("accessMessageInMemoryMaxRatio", "0"));
        try (broker) {
            broker.start();
            Set<String> received = runNewGroup(broker, expected(4, 8));
            // a consumer that started at the queues' ends never reads below them: nothing older can still come
            assertEquals(expected(4, 8), received, "only what was sent after the consumer started");
        }
    }

    /**
     * Sends key-0..3, starts a new group's push consumer once they are stored, sends key-4..7 once the consumer
     * has placed all four queues (its start offsets are computed then), and returns the keys it got by the time
     * {@code awaited} have all arrived.
     */
    private static Set<String> runNewGroup(BrokerProcess broker, Set<String> awaited) throws Exception {
        DefaultMQProducer producer = Clients.producer(broker, "pg-first-offset");
        DefaultMQPushConsumer consumer = null;
        try {
            send(producer, 0, 4);
            Set<String> received = ConcurrentHashMap.newKeySet();
            consumer = new DefaultMQPushConsumer("cg-first-offset");
            consumer.setNamesrvAddr(broker.address());
            consumer.setInstanceName(Clients.instanceName());
            consumer.setPollNameServerInterval(1000);
            consumer.setHeartbeatBrokerInterval(1000);
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
            consumer.subscribe(TOPIC, "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                msgs.forEach(m -> received.add(m.getKeys()));
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.start();
            DefaultMQPushConsumer started = consumer;
            // a queue enters the process-queue table only after its start offset was computed
            await().atMost(Duration.ofSeconds(30)).until(() -> started.getDefaultMQPushConsumerImpl().getRebalanceImpl()
                .getProcessQueueTable().keySet().stream().filter(mq -> mq.getTopic().equals(TOPIC)).count() == 4);
            send(producer, 4, 8);
            await().atMost(Duration.ofSeconds(30)).until(() -> received.containsAll(awaited));
            return new TreeSet<>(received);
        } finally {
            if (consumer != null) {
                consumer.shutdown();
            }
            producer.shutdown();
        }
    }

    private static void send(DefaultMQProducer producer, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Message m = new Message(TOPIC, "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
            assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
        }
    }

    private static Set<String> expected(int from, int to) {
        Set<String> keys = new TreeSet<>();
        for (int i = from; i < to; i++) {
            keys.add("key-" + i);
        }
        return keys;
    }
}
