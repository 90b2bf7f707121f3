package io.basalt.it;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timer messages (RocketMQ 5's {@code setDeliverTimeMs} / {@code setDelayTimeSec} / {@code setDelayTimeMs}) through a
 * broker process with 100 ms slots and the official 5.2.0 client: delivered no earlier than due (by the consumer's
 * clock and by the store time of the delivered record) and in order of due time; a TIMER_DEL_UNIQKEY message cancels
 * its target and is never delivered itself; RocketMQ's refusals (beyond timerMaxDelaySec, the timer topic sent to
 * directly); the runtime info and metrics while timers pend.
 */
class TimerMessageTest {
    /** Well beyond one 100 ms slot, so that no two due times here share a slot. */
    private static final long GAP_MS = 700;
    private static final String WARM_UP = "warm-up";

    @TempDir
    static Path dir;
    static BrokerProcess broker;
    DefaultMQProducer producer;
    DefaultLitePullConsumer consumer;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of("timerPrecisionMs", "100", "timerMaxDelaySec", "60"));
        broker.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startProducer() throws Exception {
        producer = Clients.producer(broker, "pg-timer");
    }

    @AfterEach
    void stopClients() {
        if (consumer != null) {
            consumer.shutdown();
        }
        producer.shutdown();
    }

    /** A delivered message and when this test's consumer got it. */
    record Received(MessageExt message, long receivedMs) {
        String body() {
            return new String(message.getBody(), StandardCharsets.UTF_8);
        }
    }

    private static Message message(String topic, String body, Consumer<Message> timer) {
        Message m = new Message(topic, body.getBytes(StandardCharsets.UTF_8));
        timer.accept(m);
        return m;
    }

    /**
     * A plain send to {@code topic}: the first send to a new topic waits for its route and creation, so the timed
     * sends after it take milliseconds.
     */
    private void warmUp(String topic) throws Exception {
        assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, WARM_UP.getBytes(StandardCharsets.UTF_8)))
            .getSendStatus());
    }

    /**
     * Polls {@code topic} from its first offset until {@code count} messages (warm-ups not counted) arrived or the
     * time is up.
     */
    private List<Received> receive(String topic, int count, long timeoutMs) throws Exception {
        consumer = Clients.litePull(broker, "cg-" + topic, topic, "*");
        List<Received> received = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (received.size() < count && System.currentTimeMillis() < deadline) {
            for (MessageExt m : consumer.poll(500)) {
                if (!WARM_UP.equals(new String(m.getBody(), StandardCharsets.UTF_8))) {
                    received.add(new Received(m, System.currentTimeMillis()));
                }
            }
        }
        return received;
    }

    private static void assertNoneEarly(Map<String, Long> dueByBody, List<Received> received) {
        for (Received r : received) {
            long due = dueByBody.get(r.body());
            assertTrue(r.message().getStoreTimestamp() >= due, r.body() + " stored in its topic at "
                + r.message().getStoreTimestamp() + ", before it was due at " + due);
            assertTrue(r.receivedMs() >= due, r.body() + " consumed at " + r.receivedMs() + ", due " + due);
        }
    }

    /** The bodies in the order the broker stored them back into their topic. */
    private static List<String> deliveryOrder(List<Received> received) {
        return received.stream().sorted(Comparator.comparingLong(r -> r.message().getStoreTimestamp()))
            .map(Received::body).toList();
    }

    @Test
    void timersByAbsoluteTimeAreDeliveredNoEarlierThanDueAndInDueOrder() throws Exception {
        String topic = "TimerAbsolute";
        warmUp(topic);
        long base = System.currentTimeMillis() + 2_000;
        // sent in an order other than the due order
        int[] slots = {3, 0, 4, 1, 2};
        Map<String, Long> due = new HashMap<>();
        for (int slot : slots) {
            long deliverAt = base + slot * GAP_MS;
            String body = "at-" + slot;
            due.put(body, deliverAt);
            SendResult sent = producer.send(message(topic, body, m -> m.setDeliverTimeMs(deliverAt)));
            assertEquals(SendStatus.SEND_OK, sent.getSendStatus());
        }

        List<Received> received = receive(topic, slots.length, 30_000);

        assertEquals(Set.of("at-0", "at-1", "at-2", "at-3", "at-4"),
            received.stream().map(Received::body).collect(Collectors.toSet()));
        assertEquals(slots.length, received.size(), "each once");
        assertNoneEarly(due, received);
        assertEquals(List.of("at-0", "at-1", "at-2", "at-3", "at-4"), deliveryOrder(received));
    }

    @Test
    void timersByDelayInSecondsAndMillisecondsAreDeliveredNoEarlierThanDueAndInDueOrder() throws Exception {
        String topic = "TimerDelay";
        warmUp(topic);
        Map<String, Long> due = new HashMap<>();
        long sentAt = System.currentTimeMillis();
        // the broker's clock starts each delay when the message arrives, after sentAt; due times 1.5 s apart, sent
        // in another order
        producer.send(message(topic, "sec-3", m -> m.setDelayTimeSec(3)));
        due.put("sec-3", sentAt + 3_000);
        producer.send(message(topic, "ms-1500", m -> m.setDelayTimeMs(1_500)));
        due.put("ms-1500", sentAt + 1_500);
        producer.send(message(topic, "ms-6000", m -> m.setDelayTimeMs(6_000)));
        due.put("ms-6000", sentAt + 6_000);
        producer.send(message(topic, "ms-4500", m -> m.setDelayTimeMs(4_500)));
        due.put("ms-4500", sentAt + 4_500);

        List<Received> received = receive(topic, 4, 30_000);

        assertEquals(due.keySet(), received.stream().map(Received::body).collect(Collectors.toSet()));
        assertEquals(4, received.size(), "each once");
        assertNoneEarly(due, received);
        assertEquals(List.of("ms-1500", "sec-3", "ms-4500", "ms-6000"), deliveryOrder(received));
    }

    @Test
    void aCancelDropsItsTargetAndIsNeverDeliveredItself() throws Exception {
        String topic = "TimerCancel";
        warmUp(topic);
        long deliverAt = System.currentTimeMillis() + 2_500;
        SendResult target = producer.send(message(topic, "target", m -> m.setDeliverTimeMs(deliverAt)));
        producer.send(message(topic, "kept", m -> m.setDeliverTimeMs(deliverAt)));
        // RocketMQ 5.2.0's cancel: same topic and deliver time, TIMER_DEL_UNIQKEY = the target's UNIQ_KEY
        Message cancel = message(topic, "cancel", m -> m.setDeliverTimeMs(deliverAt));
        MessageAccessor.putProperty(cancel, "TIMER_DEL_UNIQKEY", target.getMsgId());
        assertEquals(SendStatus.SEND_OK, producer.send(cancel).getSendStatus());
        // due after the cancelled slot: once it is here, the slot has been delivered
        long markerAt = deliverAt + 2 * GAP_MS;
        producer.send(message(topic, "marker", m -> m.setDeliverTimeMs(markerAt)));

        List<Received> received = receive(topic, 2, 30_000);
        // one more poll round, so that anything delivered with the marker is seen
        received.addAll(consumer.poll(1_000).stream().map(m -> new Received(m, System.currentTimeMillis()))
            .filter(r -> !r.body().equals(WARM_UP)).toList());

        List<String> bodies = received.stream().map(Received::body).sorted().toList();
        assertEquals(List.of("kept", "marker"), bodies, "the target is cancelled and the cancel itself not delivered");
        assertNoneEarly(Map.of("kept", deliverAt, "marker", markerAt), received);
    }

    @Test
    void aDelayBeyondTimerMaxDelaySecIsRefusedWithRocketMqsRemark() throws Exception {
        MQBrokerException refused = assertThrows(MQBrokerException.class,
            () -> producer.send(message("TimerTooFar", "too-far", m -> m.setDelayTimeSec(120))));
        assertEquals(13, refused.getResponseCode(), "MESSAGE_ILLEGAL");
        assertEquals("timer message illegal, the delay time should not be bigger than the max delay 60000ms; or if set"
            + " del msg, the delay time should be bigger than the current time", refused.getErrorMessage());
    }

    @Test
    void aSendStraightToTheTimerTopicIsRefused() throws Exception {
        producer.setRetryTimesWhenSendFailed(0);
        Exception failed = assertThrows(Exception.class,
            () -> producer.send(new Message("rmq_sys_wheel_timer", "forged".getBytes(StandardCharsets.UTF_8))));
        MQBrokerException refused = brokerRefusal(failed);
        assertEquals(16, refused.getResponseCode(), "NO_PERMISSION");
        assertEquals("Sending message to topic[rmq_sys_wheel_timer] is forbidden.", refused.getErrorMessage());
    }

    @Test
    void runtimeInfoAndMetricsReportTheTimersThatPend() throws Exception {
        String topic = "TimerPending";
        warmUp(topic);
        long deliverAt = System.currentTimeMillis() + 8_000;
        for (int i = 0; i < 20; i++) {
            int n = i;
            producer.send(message(topic, "pending-" + n, m -> m.setDeliverTimeMs(deliverAt + n * 10L)));
        }
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            await().atMost(ofSeconds(5)).until(() -> sample(metrics(broker), "basalt_timer_pending_messages") >= 20);
            String metrics = metrics(broker);
            assertTrue(sample(metrics, "basalt_timer_enqueued_total") >= 20, metrics);
            // RocketMQ's keys: the 20 timers sit in the slots ahead of the read time, all of them enqueued
            await().atMost(ofSeconds(5)).until(() -> Long.parseLong(
                admin.fetchBrokerRuntimeStats(broker.address()).getTable().get("timerCongestNum")) >= 20);
            Map<String, String> info = admin.fetchBrokerRuntimeStats(broker.address()).getTable();
            assertEquals("0", info.get("timerOffsetBehind"), info.toString());
        } finally {
            admin.shutdown();
        }
        List<Received> received = receive(topic, 20, 30_000);
        assertEquals(20, received.size());
        String after = metrics(broker);
        assertTrue(sample(after, "basalt_timer_delivered_total") >= 20, after);
        assertTrue(sample(after, "basalt_delivery_lateness_seconds_count{kind=\"timer\"}") >= 20, after);
    }

    static MQBrokerException brokerRefusal(Throwable failed) {
        Throwable cause = failed;
        while (cause != null && !(cause instanceof MQBrokerException)) {
            cause = cause.getCause();
        }
        assertInstanceOf(MQBrokerException.class, cause, "the broker refused the send: " + failed);
        return (MQBrokerException) cause;
    }

    /** The broker's Prometheus text, by a plain HTTP/1.0 request (no client threads left behind). */
    static String metrics(BrokerProcess broker) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(5_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.") && response.contains(" 200 ") && body >= 0, response);
            return response.substring(body + 4);
        }
    }

    static double sample(String text, String series) {
        return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.split(" ")[1]))
            .findFirst().orElse(Double.NaN);
    }
}
