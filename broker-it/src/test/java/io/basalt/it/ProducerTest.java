package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DefaultMQProducer 5.2.0 against Basalt: sync, async, one-way and batch sends to auto-created topics. */
class ProducerTest {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    /** One producer per test: its connections and pool threads (async senders) start and stop within the test. */
    DefaultMQProducer producer;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = BrokerProcess.start(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startProducer() throws Exception {
        producer = Clients.producer(broker, "pg-producer-test");
    }

    @AfterEach
    void stopProducer() {
        if (producer != null) {
            producer.shutdown();
        }
    }

    private static Message message(String topic, int i) {
        Message m = new Message(topic, "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("index", Integer.toString(i));
        return m;
    }

    private static void assertStored(SendResult r) {
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        assertTrue(r.getMsgId() != null && !r.getMsgId().isBlank(), "msgId");
        assertEquals(32, r.getOffsetMsgId().length(), r.getOffsetMsgId());
        assertTrue(r.getQueueOffset() >= 0);
    }

    private static List<MessageExt> readAll(String topic, int count) throws Exception {
        DefaultLitePullConsumer c = Clients.litePull(broker, "cg-" + topic, topic, "*");
        try {
            return Clients.pollAtLeast(c, count, 60_000);
        } finally {
            c.shutdown();
        }
    }

    @Test
    void syncSendsToAnAutoCreatedTopicAreStoredAndReadBack() throws Exception {
        String topic = "ProducerSync";
        List<SendResult> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            SendResult r = producer.send(message(topic, i));
            assertStored(r);
            results.add(r);
        }
        assertEquals(20, results.stream().map(SendResult::getOffsetMsgId).distinct().count());
        List<MessageExt> read = readAll(topic, 20);
        assertEquals(20, read.size());
        Map<String, MessageExt> byKey = read.stream().collect(Collectors.toMap(MessageExt::getKeys, m -> m));
        for (int i = 0; i < 20; i++) {
            MessageExt m = byKey.get("key-" + i);
            assertEquals("body-" + i, new String(m.getBody(), StandardCharsets.UTF_8));
            assertEquals("TagA", m.getTags());
            assertEquals(Integer.toString(i), m.getUserProperty("index"));
        }
        assertEquals(results.stream().map(SendResult::getMsgId).collect(Collectors.toSet()),
            read.stream().map(MessageExt::getMsgId).collect(Collectors.toSet()));
    }

    @Test
    void asyncSendsCompleteWithSendOk() throws Exception {
        String topic = "ProducerAsync";
        int n = 50;
        CountDownLatch done = new CountDownLatch(n);
        Map<Integer, Object> outcomes = new ConcurrentHashMap<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            producer.send(message(topic, i), new SendCallback() {
                @Override
                public void onSuccess(SendResult sendResult) {
                    outcomes.put(index, sendResult);
                    done.countDown();
                }

                @Override
                public void onException(Throwable e) {
                    outcomes.put(index, e);
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(60, TimeUnit.SECONDS));
        for (Object o : outcomes.values()) {
            assertStored(assertInstanceOf(SendResult.class, o));
        }
        assertEquals(n, readAll(topic, n).size());
    }

    @Test
    void oneWaySendsArrive() throws Exception {
        String topic = "ProducerOneway";
        producer.send(message(topic, -1));   // creates the topic and its route synchronously
        for (int i = 0; i < 10; i++) {
            producer.sendOneway(message(topic, i));
        }
        assertEquals(11, readAll(topic, 11).size());
    }

    @Test
    void batchSendStoresEveryMessageWithItsOwnId() throws Exception {
        String topic = "ProducerBatch";
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            batch.add(message(topic, i));
        }
        SendResult r = producer.send(batch);
        assertStored0(r);
        assertEquals(16, r.getMsgId().split(",").length);
        assertEquals(16, r.getOffsetMsgId().split(",").length);
        List<MessageExt> read = readAll(topic, 16);
        assertEquals(16, read.size());
        assertEquals(java.util.Set.of(r.getMsgId().split(",")), read.stream().map(MessageExt::getMsgId).collect(Collectors.toSet()));
        assertEquals(16, read.stream().map(MessageExt::getKeys).collect(Collectors.toSet()).size());
    }

    private static void assertStored0(SendResult r) {
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        assertTrue(r.getQueueOffset() >= 0);
    }

    @Test
    void offsetQueriesSeeTheQueue() throws Exception {
        String topic = "ProducerOffsets";
        long before = System.currentTimeMillis();
        SendResult first = producer.send(message(topic, 0), new org.apache.rocketmq.client.producer.MessageQueueSelector() {
            @Override
            public org.apache.rocketmq.common.message.MessageQueue select(List<org.apache.rocketmq.common.message.MessageQueue> mqs,
                Message msg, Object arg) {
                return mqs.get(0);
            }
        }, null);
        org.apache.rocketmq.common.message.MessageQueue mq = first.getMessageQueue();
        for (int i = 1; i < 5; i++) {
            producer.send(message(topic, i), mq);
        }
        // the consume queue is built by the dispatcher just after the append
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> producer.maxOffset(mq) == 5);
        assertEquals(0, producer.minOffset(mq));
        assertEquals(0, producer.searchOffset(mq, before - 60_000));
        assertTrue(producer.earliestMsgStoreTime(mq) >= before - 1000);
    }
}
