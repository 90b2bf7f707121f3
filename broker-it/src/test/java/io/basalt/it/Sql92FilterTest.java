package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.FindBrokerResult;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL92 subscriptions ({@code MessageSelector.bySql}) of the official 5.2.0 push and lite-pull consumers:
 * with {@code enablePropertyFilter=true} each receives exactly the messages its expression matches, filtered
 * on the broker (the client does not re-filter SQL92); a malformed expression fails the consumer's start with
 * SUBSCRIPTION_PARSE_FAILED; with the key off (the default) a SQL92 consumer's start is refused, and so is a
 * pull that carries a SQL92 subscription.
 */
class Sql92FilterTest {
    private static final String EXPRESSION = "a > 5 AND region = 'eu'";

    @TempDir
    Path dir;
    BrokerProcess broker;
    DefaultMQProducer producer;
    final List<Runnable> cleanups = new ArrayList<>();

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

    private void startBroker(boolean enablePropertyFilter) throws Exception {
        broker = BrokerProcess.create(dir, Map.of("enablePropertyFilter", Boolean.toString(enablePropertyFilter)));
        broker.start();
        producer = Clients.producer(broker, "pg-sql92");
    }

    /**
     * Sends a = 0..9 in regions eu and us, all to queue 0, the last one matching: once a consumer has the
     * matching ones, it has been served everything before them, so anything unmatched would have arrived.
     * Returns the keys that match {@link #EXPRESSION}.
     */
    private Set<String> sendAll(String topic) throws Exception {
        Set<String> matching = new TreeSet<>();
        for (String region : List.of("us", "eu")) {
            for (int a = 0; a < 10; a++) {
                String key = region + "-" + a;
                Message m = new Message(topic, "TagA", key, key.getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("a", Integer.toString(a));
                m.putUserProperty("region", region);
                assertEquals(SendStatus.SEND_OK, producer.send(m, (mqs, msg, arg) -> mqs.get(0), null).getSendStatus());
                if (a > 5 && region.equals("eu")) {
                    matching.add(key);
                }
            }
        }
        Message plain = new Message(topic, "TagA", "no-properties", new byte[] {1});
        assertEquals(SendStatus.SEND_OK, producer.send(plain, (mqs, msg, arg) -> mqs.get(1), null).getSendStatus());
        return matching;
    }

    private DefaultMQPushConsumer push(String group, String topic, String sql, Set<String> sink) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, MessageSelector.bySql(sql));
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> sink.add(m.getKeys()));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        cleanups.add(c::shutdown); // also when start() fails: it leaves the client's threads running
        c.start();
        return c;
    }

    private DefaultLitePullConsumer litePull(String group, String topic, String sql) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setAutoCommitIntervalMillis(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, MessageSelector.bySql(sql));
        cleanups.add(c::shutdown);
        c.start();
        return c;
    }

    /**
     * The deprecated DefaultMQPullConsumer sends no CHECK_CLIENT_CONFIG: its pulls carry the SQL92
     * subscription and show what the broker's pull path answers. It registers the topic so that it
     * heartbeats: the heartbeat's answer tells it the broker's version, and the client pulls SQL92 only from
     * a broker known to be 4.1 or newer.
     */
    @SuppressWarnings("deprecation")
    private DefaultMQPullConsumer pullConsumer(String group, String topic) throws Exception {
        DefaultMQPullConsumer c = new DefaultMQPullConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setHeartbeatBrokerInterval(1000);
        c.setRegisterTopics(Set.of(topic));
        cleanups.add(c::shutdown);
        c.start();
        return c;
    }

    /** Queue 0 of the topic, once the client knows the version of the broker that holds it. */
    @SuppressWarnings("deprecation")
    private static MessageQueue queue0(DefaultMQPullConsumer c, String topic) throws Exception {
        MessageQueue q = c.fetchSubscribeMessageQueues(topic).stream().filter(mq -> mq.getQueueId() == 0).findFirst()
            .orElseThrow();
        MQClientInstance client = c.getDefaultMQPullConsumerImpl().getRebalanceImpl().getmQClientFactory();
        client.updateTopicRouteInfoFromNameServer(topic);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            FindBrokerResult found = client.findBrokerAddressInSubscribe(q.getBrokerName(), 0, true);
            return found != null && found.getBrokerVersion() > 0;
        });
        return q;
    }

    @Test
    void pushAndLitePullConsumersReceiveExactlyTheMessagesTheirExpressionMatches() throws Exception {
        startBroker(true);
        String topic = "Sql92Topic";
        Set<String> matching = sendAll(topic);
        assertEquals(Set.of("eu-6", "eu-7", "eu-8", "eu-9"), matching);

        Set<String> pushed = ConcurrentHashMap.newKeySet();
        push("cg-sql92-push", topic, EXPRESSION, pushed);
        DefaultLitePullConsumer lite = litePull("cg-sql92-lite", topic, EXPRESSION);

        List<MessageExt> pulled = Clients.pollAtLeast(lite, matching.size(), 30_000);
        Set<String> pulledKeys = new TreeSet<>();
        pulled.forEach(m -> pulledKeys.add(m.getKeys()));
        assertEquals(matching, pulledKeys, "the lite pull consumer got exactly the matching messages");
        for (MessageExt m : pulled) {
            assertTrue(Integer.parseInt(m.getUserProperty("a")) > 5 && "eu".equals(m.getUserProperty("region")), m.toString());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> pushed.containsAll(matching));
        assertEquals(matching, new TreeSet<>(pushed), "the push consumer got exactly the matching messages");

        DefaultMQPullConsumer puller = pullConsumer("cg-sql92-pull", topic);
        @SuppressWarnings("deprecation")
        PullResult result = puller.pull(queue0(puller, topic), MessageSelector.bySql(EXPRESSION), 0, 32);
        assertEquals(PullStatus.FOUND, result.getPullStatus());
        Set<String> found = new TreeSet<>();
        result.getMsgFoundList().forEach(m -> found.add(m.getKeys()));
        assertEquals(matching, found, "one pull of the whole queue returns only the matching messages");
        assertEquals(20, result.getNextBeginOffset());
    }

    @Test
    void aMalformedExpressionFailsTheConsumersStartWithSubscriptionParseFailed() throws Exception {
        startBroker(true);
        String topic = "Sql92Malformed";
        sendAll(topic);
        MQClientException pushRefused = assertThrows(MQClientException.class,
            () -> push("cg-sql92-bad-push", topic, "a > AND region", ConcurrentHashMap.newKeySet()));
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, pushRefused.getResponseCode(), pushRefused.toString());
        assertTrue(pushRefused.getErrorMessage().startsWith("Invalid MessageSelector."), pushRefused.getErrorMessage());
        MQClientException liteRefused = assertThrows(MQClientException.class,
            () -> litePull("cg-sql92-bad-lite", topic, "region IN ('eu'"));
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, liteRefused.getResponseCode(), liteRefused.toString());

        DefaultMQPullConsumer puller = pullConsumer("cg-sql92-bad-pull", topic);
        MessageQueue q = queue0(puller, topic);
        @SuppressWarnings("deprecation")
        MQBrokerException pullRefused = assertThrows(MQBrokerException.class,
            () -> puller.pull(q, MessageSelector.bySql("a BETWEEN 5 AND 1"), 0, 32));
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, pullRefused.getResponseCode(), pullRefused.toString());
    }

    @Test
    void withoutEnablePropertyFilterASql92ConsumerIsRefusedAtStart() throws Exception {
        startBroker(false);
        String topic = "Sql92Disabled";
        sendAll(topic);
        MQClientException pushRefused = assertThrows(MQClientException.class,
            () -> push("cg-sql92-off-push", topic, EXPRESSION, ConcurrentHashMap.newKeySet()));
        assertEquals(ResponseCode.SYSTEM_ERROR, pushRefused.getResponseCode(), pushRefused.toString());
        assertEquals("The broker does not support consumer to filter message by SQL92", pushRefused.getErrorMessage());
        MQClientException liteRefused = assertThrows(MQClientException.class,
            () -> litePull("cg-sql92-off-lite", topic, EXPRESSION));
        assertEquals(ResponseCode.SYSTEM_ERROR, liteRefused.getResponseCode(), liteRefused.toString());

        // a pull that carries a SQL92 subscription is refused as well, never filtered by tag instead
        DefaultMQPullConsumer puller = pullConsumer("cg-sql92-off-pull", topic);
        MessageQueue q = queue0(puller, topic);
        @SuppressWarnings("deprecation")
        MQBrokerException pullRefused = assertThrows(MQBrokerException.class,
            () -> puller.pull(q, MessageSelector.bySql(EXPRESSION), 0, 32));
        assertEquals(ResponseCode.SYSTEM_ERROR, pullRefused.getResponseCode(), pullRefused.toString());
        assertEquals("The broker does not support consumer to filter message by SQL92", pullRefused.getErrorMessage());
    }
}
