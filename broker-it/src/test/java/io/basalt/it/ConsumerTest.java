package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DefaultMQPushConsumer and DefaultLitePullConsumer 5.2.0 against Basalt: clustering with two members,
 * message fidelity, tag filtering, orderly consumption under queue locks, and committed offsets across a
 * broker restart.
 */
@LeakCheckExtension.AllowThreads(value = "ConsumeMessageScheduledThread_1",
    because = "an orderly DefaultMQPushConsumer 5.2.0 also starts a ConsumeMessagePopOrderlyService, whose scheduler"
        + " (named without the group, unlike the orderly service's own, which must stop) its shutdown() never stops")
class ConsumerTest {
    @TempDir
    Path dir;
    BrokerProcess broker;
    DefaultMQProducer producer;
    final List<Runnable> cleanups = new java.util.ArrayList<>();

    @BeforeEach
    void startBroker() throws Exception {
        broker = BrokerProcess.start(dir);
        producer = Clients.producer(broker, "pg-consumer-test");
    }

    @AfterEach
    void stop() throws Exception {
        cleanups.forEach(Runnable::run);
        if (producer != null) {
            producer.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private void send(String topic, String tag, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Message m = new Message(topic, tag, "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
            m.putUserProperty("index", Integer.toString(i));
            m.putUserProperty("tag", tag);
            assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
        }
    }

    private DefaultMQPushConsumer push(String group, String topic, String tags, Map<String, MessageExt> sink,
        Set<String> mine) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setPersistConsumerOffsetInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, tags);
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                sink.put(m.getKeys(), m);
                mine.add(m.getKeys());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        cleanups.add(c::shutdown);
        return c;
    }

    private static int assignedQueues(DefaultMQPushConsumer c, String topic) {
        return (int) c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet().stream()
            .filter(mq -> mq.getTopic().equals(topic)).count();
    }

    private static void assertFidelity(MessageExt m) {
        int i = Integer.parseInt(m.getKeys().substring("key-".length()));
        assertEquals("body-" + i, new String(m.getBody(), StandardCharsets.UTF_8));
        assertEquals(Integer.toString(i), m.getUserProperty("index"));
        assertEquals(m.getUserProperty("tag"), m.getTags());
    }

    @Test
    void twoPushConsumersInOneGroupShareTheQueuesAndReceiveEverything() throws Exception {
        String topic = "PushShared";
        send(topic, "TagA", 0, 1);   // auto-creates the topic with 4 queues
        Map<String, MessageExt> received = new ConcurrentHashMap<>();
        Set<String> first = ConcurrentHashMap.newKeySet();
        Set<String> second = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer c1 = push("cg-shared", topic, "*", received, first);
        DefaultMQPushConsumer c2 = push("cg-shared", topic, "*", received, second);
        await().atMost(Duration.ofSeconds(60)).until(() -> assignedQueues(c1, topic) == 2 && assignedQueues(c2, topic) == 2);
        send(topic, "TagA", 1, 101);
        await().atMost(Duration.ofSeconds(60)).until(() -> received.size() == 101);
        received.values().forEach(ConsumerTest::assertFidelity);
        assertTrue(first.size() > 0 && second.size() > 0, "both members consumed: " + first.size() + "/" + second.size());
    }

    @Test
    void anOrderlyPushConsumerLocksItsQueuesAndReceivesEachInOrder() throws Exception {
        String topic = "PushOrderly";
        send(topic, "TagA", 0, 1);   // auto-creates the topic
        List<String> received = Collections.synchronizedList(new ArrayList<>());
        DefaultMQPushConsumer c = new DefaultMQPushConsumer("cg-orderly");
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            msgs.forEach(m -> received.add(m.getQueueId() + ":" + m.getKeys()));
            return ConsumeOrderlyStatus.SUCCESS;
        });
        c.start();
        cleanups.add(c::shutdown);
        // LOCK_BATCH_MQ: the client consumes a queue orderly only once the broker's answer says it holds it
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var queues = c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().entrySet().stream()
                .filter(e -> e.getKey().getTopic().equals(topic)).toList();
            return queues.size() == 4 && queues.stream().allMatch(e -> e.getValue().isLocked());
        });
        MessageQueueSelector toQueueOne = (queues, message, arg) -> queues.stream()
            .filter(q -> q.getQueueId() == 1).findFirst().orElseThrow();
        for (int i = 1; i <= 30; i++) {
            Message m = new Message(topic, "TagA", "ordered-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
            assertEquals(SendStatus.SEND_OK, producer.send(m, toQueueOne, null).getSendStatus());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> received.stream().filter(r -> r.startsWith("1:ordered-")).count() >= 30);
        List<String> queueOne;
        synchronized (received) {
            queueOne = received.stream().filter(r -> r.startsWith("1:ordered-")).toList();
        }
        assertEquals(IntStream.rangeClosed(1, 30).mapToObj(i -> "1:ordered-" + i).toList(), queueOne);
    }

    @Test
    void litePullTagSubscriptionReceivesOnlyItsTag() throws Exception {
        String topic = "LiteTags";
        send(topic, "TagA", 0, 20);
        send(topic, "TagB", 20, 40);
        DefaultLitePullConsumer c = Clients.litePull(broker, "cg-lite-tags", topic, "TagB");
        cleanups.add(c::shutdown);
        List<MessageExt> got = Clients.pollAtLeast(c, 20, 60_000);
        // a little longer: nothing of TagA may follow
        got.addAll(c.poll(1000));
        assertEquals(20, got.size());
        got.forEach(ConsumerTest::assertFidelity);
        assertTrue(got.stream().allMatch(m -> "TagB".equals(m.getTags())));
        assertEquals(20, got.stream().map(MessageExt::getKeys).distinct().count());
    }

    @Test
    void pushTagSubscriptionFiltersAndLongPollingDeliversNewMessages() throws Exception {
        String topic = "PushTags";
        send(topic, "TagA", 0, 1);
        Map<String, MessageExt> received = new ConcurrentHashMap<>();
        DefaultMQPushConsumer c = push("cg-push-tags", topic, "TagA || TagC", received, ConcurrentHashMap.newKeySet());
        await().atMost(Duration.ofSeconds(60)).until(() -> assignedQueues(c, topic) == 4);
        await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 1);
        // The consumer's pulls are now held by the broker; new messages must wake them.
        send(topic, "TagB", 1, 11);
        send(topic, "TagC", 11, 21);
        await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 11);
        received.values().forEach(ConsumerTest::assertFidelity);
        assertTrue(received.values().stream().noneMatch(m -> "TagB".equals(m.getTags())));
    }

    @Test
    void committedOffsetsSurviveABrokerRestart() throws Exception {
        String topic = "RestartOffsets";
        send(topic, "TagA", 0, 40);
        Map<String, MessageExt> before = new ConcurrentHashMap<>();
        DefaultMQPushConsumer c = push("cg-restart", topic, "*", before, ConcurrentHashMap.newKeySet());
        await().atMost(Duration.ofSeconds(60)).until(() -> before.size() == 40);
        // The listener sees a batch before the client advances its offset past it: wait for the offsets
        // of all 40, so the shutdown persists them and nothing is delivered twice by at-least-once.
        await().atMost(Duration.ofSeconds(30)).until(() -> consumedOffsets(c, topic) == 40);
        c.shutdown();   // persists its offsets to the broker
        cleanups.clear();
        producer.shutdown();
        producer = null;
        broker.stopGracefully();
        assertTrue(java.nio.file.Files.notExists(broker.storeDir().resolve("abort")), "clean shutdown removes abort");
        broker.start();
        producer = Clients.producer(broker, "pg-consumer-test");
        send(topic, "TagA", 40, 60);
        Map<String, MessageExt> after = new ConcurrentHashMap<>();
        push("cg-restart", topic, "*", after, ConcurrentHashMap.newKeySet());
        await().atMost(Duration.ofSeconds(60)).until(() -> after.size() >= 20);
        Set<String> expected = new HashSet<>();
        for (int i = 40; i < 60; i++) {
            expected.add("key-" + i);
        }
        assertEquals(expected, after.keySet().stream().collect(Collectors.toSet()),
            "only messages after the committed offsets are delivered again");
    }

    /** The sum of the push consumer's in-memory offsets over the topic's queues (what its shutdown persists). */
    private static long consumedOffsets(DefaultMQPushConsumer c, String topic) throws Exception {
        OffsetStore store = c.getDefaultMQPushConsumerImpl().getOffsetStore();
        long sum = 0;
        for (MessageQueue mq : c.fetchSubscribeMessageQueues(topic)) {
            sum += Math.max(0, store.readOffset(mq, ReadOffsetType.READ_FROM_MEMORY));
        }
        return sum;
    }

    @Test
    void aRejectedMessageComesBackThroughTheRetryTopic() throws Exception {
        String topic = "PushRetry";
        send(topic, "TagA", 0, 3);
        Map<String, Integer> redelivered = new ConcurrentHashMap<>();
        DefaultMQPushConsumer c = new DefaultMQPushConsumer("cg-retry");
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                if (m.getReconsumeTimes() == 0) {
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                assertFidelity(m);
                redelivered.put(m.getKeys(), m.getReconsumeTimes());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        cleanups.add(c::shutdown);
        await().atMost(Duration.ofSeconds(90)).until(() -> redelivered.size() == 3);
        assertEquals(Map.of("key-0", 1, "key-1", 1, "key-2", 1), Map.copyOf(redelivered));
    }
}
