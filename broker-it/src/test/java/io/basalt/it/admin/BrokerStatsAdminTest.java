package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.body.BrokerStatsData;
import org.apache.rocketmq.remoting.protocol.body.ConsumeStatsList;
import org.apache.rocketmq.remoting.protocol.body.QueueTimeSpan;
import org.apache.rocketmq.remoting.protocol.body.TopicList;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocketMQ's statistics and consumer queries against a Basalt broker, through the official 5.2.0 producer, push
 * consumer, {@code DefaultMQAdminExt} and {@code mqadmin}: VIEW_BROKER_STATS_DATA by RocketMQ's stats names and
 * keys, {@code statsAll}, consume TPS, {@code brokerConsumeStats}, the consume time span, the topics and the
 * subscription of a group, the system topic list, and {@code clusterList} / {@code brokerStatus} with a value
 * for every key they print.
 */
class BrokerStatsAdminTest {
    private static final String TOPIC = "StatsTopic";
    private static final String GROUP = "cg-stats";
    private static final int SENDS = 30;
    private static final int BATCH = 10;
    private static final int MESSAGES = SENDS + BATCH;

    @TempDir
    Path dir;

    @Test
    void statsQueriesAndClusterListOfATrafficBroker() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            String addr = broker.address();
            DefaultMQProducer producer = AdminClients.producer(addr, "pg-stats");
            DefaultMQAdminExt admin = AdminClients.admin(addr);
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(GROUP);
            try {
                for (int i = 0; i < SENDS; i++) {
                    Message m = new Message(TOPIC, "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                    assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
                }
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < BATCH; i++) {
                    batch.add(new Message(TOPIC, "TagA", "batch-" + i, ("batch-" + i).getBytes(StandardCharsets.UTF_8)));
                }
                assertEquals(SendStatus.SEND_OK, producer.send(batch).getSendStatus());

                Set<String> received = ConcurrentHashMap.newKeySet();
                consumer.setNamesrvAddr(addr);
                consumer.setInstanceName(AdminClients.instanceName());
                consumer.setPollNameServerInterval(1000);
                consumer.setHeartbeatBrokerInterval(1000);
                consumer.setPersistConsumerOffsetInterval(1000);
                consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                consumer.subscribe(TOPIC, "*");
                consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                    msgs.forEach(m -> received.add(m.getKeys()));
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                consumer.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == MESSAGES);

                // the minute windows are sampled every 10 s; everything below must be read within that minute
                await().atMost(Duration.ofSeconds(30)).until(() -> minute(admin, addr, "GROUP_GET_NUMS", TOPIC + "@" + GROUP) >= MESSAGES);
                BrokerStatsData puts = admin.viewBrokerStatsData(addr, "TOPIC_PUT_NUMS", TOPIC);
                assertEquals(MESSAGES, puts.getStatsMinute().getSum(), "messages stored");
                assertEquals((double) MESSAGES / (SENDS + 1), puts.getStatsMinute().getAvgpt(), 1e-9,
                    "messages per send request: the batch is one request");
                assertTrue(puts.getStatsMinute().getTps() > 0);
                long putBytes = admin.viewBrokerStatsData(addr, "TOPIC_PUT_SIZE", TOPIC).getStatsMinute().getSum();
                assertTrue(putBytes > MESSAGES * 100L, "stored bytes are whole records: " + putBytes);
                assertEquals(MESSAGES, admin.viewBrokerStatsData(addr, "GROUP_GET_NUMS", TOPIC + "@" + GROUP)
                    .getStatsMinute().getSum(), "messages delivered to the group");
                assertTrue(admin.viewBrokerStatsData(addr, "GROUP_GET_SIZE", TOPIC + "@" + GROUP).getStatsMinute().getSum() > 0);
                assertTrue(admin.viewBrokerStatsData(addr, "BROKER_PUT_NUMS", "DefaultCluster").getStatsMinute().getSum() >= MESSAGES);
                assertTrue(admin.viewBrokerStatsData(addr, "BROKER_GET_NUMS", "DefaultCluster").getStatsMinute().getSum() >= MESSAGES);
                MQClientException unknown = assertThrows(MQClientException.class,
                    () -> admin.viewBrokerStatsData(addr, "TOPIC_PUT_NUMS", "NoSuchTopic"));
                assertEquals(1, unknown.getResponseCode());
                assertTrue(unknown.getErrorMessage().contains("The stats TOPIC_PUT_NUMS NoSuchTopic not exist"),
                    unknown.getErrorMessage());

                String[] row = statsAllRow(MqAdmin.run("statsAll", "-n", addr, "-t", TOPIC));
                assertTrue(Double.parseDouble(row[3]) > 0, "InTPS " + Arrays.toString(row));
                assertTrue(Double.parseDouble(row[4]) > 0, "OutTPS " + Arrays.toString(row));
                assertEquals(MESSAGES, Long.parseLong(row[5]), "InMsg24Hour " + Arrays.toString(row));
                assertEquals(MESSAGES, Long.parseLong(row[6]), "OutMsg24Hour " + Arrays.toString(row));

                assertTrue(admin.examineConsumeStats(GROUP).getConsumeTps() > 0, "consume TPS");

                // committed offsets reach the broker within a persist interval
                await().atMost(Duration.ofSeconds(30)).until(() -> admin.examineConsumeStats(GROUP).computeTotalDiff() == 0);
                ConsumeStatsList all = admin.fetchConsumeStatsInBroker(addr, false, 10_000);
                assertEquals(addr, all.getBrokerAddr());
                List<ConsumeStats> ours = new ArrayList<>();
                all.getConsumeStatsList().forEach(m -> ours.addAll(m.getOrDefault(GROUP, List.of())));
                assertTrue(ours.stream().anyMatch(s -> s.getOffsetTable().keySet().stream().anyMatch(q -> q.getTopic().equals(TOPIC))),
                    "the group's topic is listed");
                assertEquals(0, all.getTotalDiff());
                String brokerConsumeStats = MqAdmin.run("brokerConsumeStats", "-n", addr, "-b", addr);
                assertTrue(brokerConsumeStats.lines().anyMatch(l -> l.startsWith(TOPIC) && l.contains(GROUP)), brokerConsumeStats);

                List<QueueTimeSpan> spans = admin.queryConsumeTimeSpan(TOPIC, GROUP);
                assertFalse(spans.isEmpty());
                assertTrue(spans.stream().anyMatch(s -> s.getMaxTimeStamp() > 0 && s.getConsumeTimeStamp() == s.getMaxTimeStamp()
                    && s.getMinTimeStamp() > 0 && s.getDelayTime() == 0), spans.toString());

                // a group that consumed nothing: its consume time is the queue's first message, and that one waits
                List<QueueTimeSpan> idle = admin.queryConsumeTimeSpan(TOPIC, "cg-stats-idle");
                assertTrue(idle.stream().anyMatch(s -> s.getMinTimeStamp() > 0 && s.getConsumeTimeStamp() == s.getMinTimeStamp()
                    && s.getDelayTime() > 0), idle.toString());

                TopicList topics = admin.queryTopicsByConsumer(GROUP);
                assertTrue(topics.getTopicList().contains(TOPIC), topics.getTopicList().toString());
                SubscriptionData subscription = admin.querySubscription(GROUP, TOPIC);
                assertNotNull(subscription, "the group is online");
                assertEquals("*", subscription.getSubString());

                // the admin API leaves the broker's system topics (GET_SYSTEM_TOPIC_LIST_FROM_BROKER) out of the user
                // topics; the cluster-name and reply topics are not in the client's own static set
                Set<String> userTopics = admin.getUserTopicConfig(addr, false, 10_000).getTopicConfigTable().keySet();
                assertTrue(userTopics.contains(TOPIC), userTopics.toString());
                assertFalse(userTopics.contains("DefaultCluster"), userTopics.toString());
                assertFalse(userTopics.contains("DefaultCluster_REPLY_TOPIC"), userTopics.toString());

                for (String[] args : List.of(new String[] {"clusterList", "-n", addr}, new String[] {"clusterList", "-n", addr, "-m"},
                    new String[] {"brokerStatus", "-n", addr, "-b", addr})) {
                    String out = MqAdmin.run(args);
                    assertTrue(out.contains("DefaultCluster") || out.contains("msgPutTotalTodayNow"), out);
                    assertFalse(out.contains("null"), out);
                    assertFalse(out.contains("Exception"), out);
                }
            } finally {
                consumer.shutdown();
                admin.shutdown();
                producer.shutdown();
            }
        }
    }

    private static long minute(DefaultMQAdminExt admin, String addr, String name, String key) {
        try {
            return admin.viewBrokerStatsData(addr, name, key).getStatsMinute().getSum();
        } catch (Exception e) {
            return -1;
        }
    }

    /** statsAll's row of the topic and group: topic, group, accumulation, InTPS, OutTPS, InMsg24Hour, OutMsg24Hour. */
    private static String[] statsAllRow(String out) {
        return out.lines().filter(l -> l.startsWith(TOPIC + " ") && l.contains(GROUP)).findFirst()
            .map(l -> l.trim().split("\\s+")).orElseThrow(() -> new AssertionError("no row for " + TOPIC + ":\n" + out));
    }
}
