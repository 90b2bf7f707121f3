package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official RocketMQ 5.x Java SDK (rocketmq-client-java 5.0.7) consuming from a Basalt broker process over its gRPC
 * endpoint (POP): a simple consumer's receive / ack / change-invisible-duration, re-delivery of what is not acked,
 * a push consumer (auto-renew receives) and a remoting consumer of another group on the same topic.
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client the class's tests share keeps its remoting client for the whole class")
class GrpcConsumerTest {
    /** Short so the auto-renew test shows a renewal: without it the message would be delivered again after this. */
    static final long AUTO_RENEW_INVISIBLE_MS = 3_000;
    @TempDir
    static Path dir;
    static GrpcBroker grpc;
    static BrokerProcess broker;
    static DefaultMQAdminExt admin;
    static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();
    final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void startBroker() throws Exception {
        grpc = GrpcBroker.start(dir.resolve("broker"), Map.of("defaultInvisibleTimeMills",
            Long.toString(AUTO_RENEW_INVISIBLE_MS)));
        broker = grpc.process;
        admin = grpc.admin;
        // every topic and group up front: the shared admin client opens its connections here, not in a test
        createTopic("GrpcAcked", 2);
        createTopic("GrpcUnacked", 1);
        createTopic("GrpcChanged", 1);
        createTopic("GrpcPushed", 4);
        createTopic("GrpcSlow", 1);
        createTopic("GrpcFailing", 1);
        org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig failing =
            new org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig();
        failing.setGroupName("GrpcFailingGroup");
        failing.setRetryMaxTimes(1);
        admin.createAndUpdateSubscriptionGroupConfig(broker.address(), failing);
        admin.examineTopicStats("GrpcFailing");
        grpc.createTopic("GrpcOrdered", 2, "FIFO");
        org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig orderly =
            new org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig();
        orderly.setGroupName("GrpcOrderedGroup");
        orderly.setConsumeMessageOrderly(true);
        admin.createAndUpdateSubscriptionGroupConfig(broker.address(), orderly);
    }

    static void createTopic(String topic, int queues) throws Exception {
        grpc.createTopic(topic, queues, "NORMAL");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (grpc != null) {
            grpc.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private ClientConfiguration configuration() {
        return grpc.configuration(false);
    }

    private void send(String topic, String... bodies) throws Exception {
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration()).setTopics(topic).build();
        try (p) {
            for (String b : bodies) {
                p.send(PROVIDER.newMessageBuilder().setTopic(topic).setTag("T").setBody(utf8(b)).build());
            }
        }
    }

    private SimpleConsumer simpleConsumer(String group, String topic) throws Exception {
        SimpleConsumer c = PROVIDER.newSimpleConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup(group).setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
            .setAwaitDuration(Duration.ofSeconds(5)).build();
        closing.add(c);
        return c;
    }

    /** Receives until {@code count} messages came (each receive waits up to the await duration). */
    private static List<MessageView> receive(SimpleConsumer c, int count, Duration invisible) {
        List<MessageView> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            got.addAll(c.receive(16, invisible));
            return got.size() >= count;
        });
        return got;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String body(MessageView m) {
        return StandardCharsets.UTF_8.decode(m.getBody().duplicate()).toString();
    }

    @Test
    void receivedAndAckedMessagesAreNotDeliveredAgain() throws Exception {
        send("GrpcAcked", "a1", "a2", "a3");
        SimpleConsumer c = simpleConsumer("GrpcAckedGroup", "GrpcAcked");
        List<MessageView> got = receive(c, 3, Duration.ofSeconds(10));
        assertEquals(Set.of("a1", "a2", "a3"), got.stream().map(GrpcConsumerTest::body).collect(
            java.util.stream.Collectors.toSet()));
        for (MessageView m : got) {
            assertEquals(1, m.getDeliveryAttempt());
            assertEquals("T", m.getTag().orElse(null));
            c.ack(m);
        }
        // past the invisible time: an acked message never comes back
        long until = System.currentTimeMillis() + 14_000;
        List<MessageView> again = new ArrayList<>();
        while (System.currentTimeMillis() < until) {
            again.addAll(c.receive(16, Duration.ofSeconds(10)));
        }
        assertTrue(again.isEmpty(), "acked messages delivered again: " + again);
    }

    @Test
    void unackedMessageIsDeliveredAgainAfterItsInvisibleTimeWithAttemptTwo() throws Exception {
        send("GrpcUnacked", "u1");
        SimpleConsumer c = simpleConsumer("GrpcUnackedGroup", "GrpcUnacked");
        MessageView first = receive(c, 1, Duration.ofSeconds(10)).get(0);
        assertEquals(1, first.getDeliveryAttempt());
        MessageView second = receive(c, 1, Duration.ofSeconds(10)).get(0);
        assertEquals("u1", body(second));
        assertEquals(first.getMessageId(), second.getMessageId());
        assertEquals(2, second.getDeliveryAttempt());
        c.ack(second);
    }

    @Test
    void ackAfterChangeInvisibleDurationOfANonFirstMessageOfABatchHolds() throws Exception {
        send("GrpcChanged", "c1", "c2", "c3");
        SimpleConsumer c = simpleConsumer("GrpcChangedGroup", "GrpcChanged");
        List<MessageView> batch = receive(c, 3, Duration.ofSeconds(10));
        MessageView second = batch.stream().filter(m -> body(m).equals("c2")).findFirst().orElseThrow();
        c.changeInvisibleDuration(second, Duration.ofSeconds(2));
        for (MessageView m : batch) {
            c.ack(m); // the changed one with the handle the change answered
        }
        long until = System.currentTimeMillis() + 14_000;
        List<MessageView> again = new ArrayList<>();
        while (System.currentTimeMillis() < until) {
            again.addAll(c.receive(16, Duration.ofSeconds(10)));
        }
        assertTrue(again.isEmpty(), "messages delivered again after their ack: " + again);
    }

    @Test
    void pushConsumerGetsEverythingAndARemotingConsumerOfAnotherGroupToo() throws Exception {
        Set<String> grpc = ConcurrentHashMap.newKeySet();
        PushConsumer push = PROVIDER.newPushConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup("GrpcPushGroup").setSubscriptionExpressions(Map.of("GrpcPushed", FilterExpression.SUB_ALL))
            .setMessageListener(m -> {
                grpc.add(body(m));
                return ConsumeResult.SUCCESS;
            }).build();
        closing.add(push);
        Set<String> remoting = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer old = new DefaultMQPushConsumer("RemotingPushGroup");
        old.setNamesrvAddr(broker.address());
        old.setInstanceName(Clients.instanceName());
        old.subscribe("GrpcPushed", "*");
        old.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        old.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> remoting.add(new String(m.getBody(), StandardCharsets.UTF_8)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        old.start();
        closing.add(old::shutdown);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            bodies.add("p" + i);
        }
        send("GrpcPushed", bodies.toArray(String[]::new));
        await().atMost(Duration.ofSeconds(60)).until(() -> grpc.size() == 20 && remoting.size() == 20);
        assertEquals(Set.copyOf(bodies), grpc);
        assertEquals(Set.copyOf(bodies), remoting);
    }

    @Test
    void autoRenewKeepsASlowlyConsumedMessageFromBeingDeliveredAgain() throws Exception {
        AtomicInteger deliveries = new AtomicInteger();
        CountDownLatch slow = new CountDownLatch(1);
        PushConsumer push = PROVIDER.newPushConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup("GrpcSlowGroup").setSubscriptionExpressions(Map.of("GrpcSlow", FilterExpression.SUB_ALL))
            .setMessageListener(m -> {
                deliveries.incrementAndGet();
                try {
                    // consumes for 3 times the invisible time of an auto-renew receive
                    slow.await(3 * AUTO_RENEW_INVISIBLE_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return ConsumeResult.SUCCESS;
            }).build();
        closing.add(push);
        send("GrpcSlow", "s1");
        await().atMost(Duration.ofSeconds(60)).until(() -> deliveries.get() >= 1);
        // past the listener's end and an invisible time more: a message not renewed would have come again
        long until = System.currentTimeMillis() + 4 * AUTO_RENEW_INVISIBLE_MS;
        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() >= until);
        assertEquals(1, deliveries.get(), "the slowly consumed message was delivered again");
    }

    @Test
    void aMessageTheListenerKeepsFailingEndsInTheGroupsDeadLetterQueue() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        PushConsumer push = PROVIDER.newPushConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup("GrpcFailingGroup")
            .setSubscriptionExpressions(Map.of("GrpcFailing", FilterExpression.SUB_ALL))
            .setMessageListener(m -> {
                attempts.incrementAndGet();
                return ConsumeResult.FAILURE;
            }).build();
        closing.add(push);
        send("GrpcFailing", "f1");
        // retried with the group's back-off, then dead-lettered once its attempts (retryMaxTimes + 1) are used
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> admin.examineTopicStats(
            "%DLQ%GrpcFailingGroup").getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum() == 1);
        assertTrue(attempts.get() >= 2, "attempts before the dead letter queue: " + attempts.get());
    }

    @Test
    void aFifoGroupGetsEachMessageGroupInOrderAndAFailedMessageAgainBeforeTheNext() throws Exception {
        Map<String, List<String>> seen = new ConcurrentHashMap<>();
        AtomicInteger failuresLeft = new AtomicInteger(1);
        PushConsumer push = PROVIDER.newPushConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup("GrpcOrderedGroup")
            .setSubscriptionExpressions(Map.of("GrpcOrdered", FilterExpression.SUB_ALL))
            .setMessageListener(m -> {
                String body = body(m);
                // the first delivery of a#3 fails: FIFO retries it in place before a#4 comes
                if (body.equals("a#3") && failuresLeft.getAndDecrement() > 0) {
                    return ConsumeResult.FAILURE;
                }
                seen.computeIfAbsent(m.getMessageGroup().orElseThrow(), g -> new CopyOnWriteArrayList<>()).add(body);
                return ConsumeResult.SUCCESS;
            }).build();
        closing.add(push);
        Producer p = PROVIDER.newProducerBuilder().setClientConfiguration(configuration()).setTopics("GrpcOrdered").build();
        List<String> expectedA = new ArrayList<>();
        List<String> expectedB = new ArrayList<>();
        try (p) {
            for (int i = 0; i < 10; i++) {
                for (String g : List.of("a", "b")) {
                    p.send(PROVIDER.newMessageBuilder().setTopic("GrpcOrdered").setMessageGroup(g)
                        .setBody(utf8(g + "#" + i)).build());
                    (g.equals("a") ? expectedA : expectedB).add(g + "#" + i);
                }
            }
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> seen.getOrDefault("a", List.of()).size() >= 10
            && seen.getOrDefault("b", List.of()).size() >= 10);
        assertEquals(expectedA, seen.get("a"));
        assertEquals(expectedB, seen.get("b"));
    }
}
