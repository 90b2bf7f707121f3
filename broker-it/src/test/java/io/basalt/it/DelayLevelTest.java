package io.basalt.it;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delay levels with the official 5.2.0 client, {@code messageDelayLevel=1s 2s 3s}: every message is delivered no
 * earlier than its level's delay after it was stored, in order of due time; the send result names the
 * SCHEDULE_TOPIC_XXXX record (its queue offset and offset message id, the queue the producer chose); the record
 * and the delivered message carry RocketMQ's properties; the runtime info reports each level; messages pending
 * when the broker is killed are delivered after the restart.
 */
class DelayLevelTest {
    private static final String TOPIC = "DelayTopic";

    @TempDir
    Path dir;

    /** What the producer learned of one delayed send, and what the broker stored for it. */
    private record Sent(String body, int level, SendResult result, long scheduledStoreTime) {
        long dueMs() {
            return scheduledStoreTime + level * 1000L;
        }
    }

    @Test
    void everyLevelIsDeliveredWhenDueInDueOrderAndAcrossAKill() throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("messageDelayLevel", "1s 2s 3s"));
        broker.start();
        DefaultMQProducer producer = Clients.producer(broker, "pg-delay");
        DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            // idempotent, so retried while a freshly started broker on a busy machine is slow to answer
            await().atMost(ofSeconds(30)).ignoreExceptions().until(() -> {
                admin.createAndUpdateTopicConfig(broker.address(), new org.apache.rocketmq.common.TopicConfig(TOPIC, 4, 4, 6));
                return true;
            });
            List<Sent> sent = new ArrayList<>();
            int[] levels = {3, 1, 2, 3, 1, 2, 5};   // 5: above the maximum, stored as level 3
            Map<Integer, Long> perLevel = new HashMap<>();
            for (int i = 0; i < levels.length; i++) {
                Message m = new Message(TOPIC, "tagA", ("m" + i).getBytes(StandardCharsets.UTF_8));
                m.setDelayTimeLevel(levels[i]);
                SendResult r = producer.send(m);
                assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                int level = Math.min(levels[i], 3);
                long expectedOffset = perLevel.merge(level, 1L, Long::sum) - 1;
                assertEquals(expectedOffset, r.getQueueOffset(), "the offset in SCHEDULE_TOPIC_XXXX queue " + (level - 1));
                MessageExt scheduled = admin.viewMessage(r.getOffsetMsgId());
                assertEquals("SCHEDULE_TOPIC_XXXX", scheduled.getTopic());
                assertEquals(level - 1, scheduled.getQueueId());
                assertEquals(TOPIC, scheduled.getProperty("REAL_TOPIC"));
                assertEquals(Integer.toString(r.getMessageQueue().getQueueId()), scheduled.getProperty("REAL_QID"),
                    "the queue the producer chose");
                assertEquals(level, scheduled.getDelayTimeLevel());
                sent.add(new Sent("m" + i, level, r, scheduled.getStoreTimestamp()));
            }

            DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-delay", TOPIC, "*");
            try {
                List<MessageExt> got = Clients.pollAtLeast(consumer, sent.size(), 30_000);
                assertEquals(sent.size(), got.size());
                Map<String, Sent> byBody = new HashMap<>();
                sent.forEach(s -> byBody.put(s.body(), s));
                got.sort(Comparator.comparingLong(MessageExt::getStoreTimestamp));
                long lastDue = 0;
                Map<Integer, Long> lastDueOfLevel = new HashMap<>();
                for (MessageExt m : got) {
                    Sent s = byBody.get(new String(m.getBody(), StandardCharsets.UTF_8));
                    assertTrue(m.getStoreTimestamp() >= s.dueMs(), s.body() + " not delivered before it was due");
                    assertTrue(s.dueMs() > lastDueOfLevel.getOrDefault(s.level(), 0L), "a level in order: " + s.body());
                    // levels are 1 s apart: a message due a second earlier never comes after a later one
                    assertTrue(s.dueMs() > lastDue - 500, "in order of due time: " + s.body());
                    lastDueOfLevel.put(s.level(), s.dueMs());
                    lastDue = Math.max(lastDue, s.dueMs());
                    assertEquals(TOPIC, m.getTopic());
                    assertEquals("tagA", m.getTags());
                    assertEquals(s.level(), m.getDelayTimeLevel(), "DELAY stays in the delivered record, as RocketMQ");
                    assertEquals(TOPIC, m.getProperty("REAL_TOPIC"));
                    assertEquals(s.result().getMsgId(), m.getMsgId(), "the client's message id is kept");
                }
                await().atMost(ofSeconds(10)).untilAsserted(() -> {
                    Map<String, String> info = admin.fetchBrokerRuntimeStats(broker.address()).getTable();
                    assertEquals("2,2", info.get("scheduleMessageOffset_1"));
                    assertEquals("2,2", info.get("scheduleMessageOffset_2"));
                    assertEquals("3,3", info.get("scheduleMessageOffset_3"));
                });

                // pending when the broker is killed: delivered after the restart
                for (int i = 0; i < 3; i++) {
                    Message m = new Message(TOPIC, "tagB", ("p" + i).getBytes(StandardCharsets.UTF_8));
                    m.setDelayTimeLevel(3);
                    assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
                }
                broker.killHard();
                broker.start();
                // the consumer may get some m's again (its offset commit may not have reached the killed broker)
                java.util.Set<String> pending = new java.util.TreeSet<>();
                long deadline = System.currentTimeMillis() + 30_000;
                while (pending.size() < 3 && System.currentTimeMillis() < deadline) {
                    for (MessageExt m : consumer.poll(1000)) {
                        String body = new String(m.getBody(), StandardCharsets.UTF_8);
                        if (body.startsWith("p")) {
                            assertTrue(m.getStoreTimestamp() >= m.getBornTimestamp() + 3000, body + " not early");
                            pending.add(body);
                        }
                    }
                }
                assertEquals(java.util.Set.of("p0", "p1", "p2"), pending);
            } finally {
                consumer.shutdown();
            }
        } finally {
            admin.shutdown();
            producer.shutdown();
            broker.close();
        }
    }
}
