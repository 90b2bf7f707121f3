package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timer wheel across a broker's life: with {@code timerWheelEnable=false} a timer message is refused as RocketMQ
 * refuses it; timers pending when the broker is killed are delivered after the restart, none early.
 */
class TimerWheelLifecycleTest {
    @TempDir
    Path dir;

    @Test
    void withTheWheelDisabledATimerMessageIsRefusedAsRocketMqRefusesIt() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("disabled"), Map.of("timerWheelEnable", "false"))) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-timer-disabled");
            producer.setRetryTimesWhenSendFailed(0);
            try {
                Message timer = new Message("TimerDisabled", "later".getBytes(StandardCharsets.UTF_8));
                timer.setDelayTimeSec(2);
                // SYSTEM_ERROR is one of the client's retried codes: it ends as an MQClientException with the code
                MQClientException failed = assertThrows(MQClientException.class, () -> producer.send(timer));
                var refused = TimerMessageTest.brokerRefusal(failed);
                assertEquals(1, refused.getResponseCode(), "SYSTEM_ERROR");
                assertEquals("accurate timer message is not enabled, timerWheelEnable is false", refused.getErrorMessage());
                assertEquals(SendStatus.SEND_OK, producer.send(new Message("TimerDisabled",
                    "now".getBytes(StandardCharsets.UTF_8))).getSendStatus(), "plain sends are served");
            } finally {
                producer.shutdown();
            }
        }
    }

    @Test
    void timersPendingAtAKillAreDeliveredAfterTheRestartNoneEarly() throws Exception {
        String topic = "TimerRestart";
        int count = 50;
        Map<String, Long> due = new HashMap<>();
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("restart"), Map.of("timerPrecisionMs", "100"))) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-timer-restart");
            try {
                long base = System.currentTimeMillis() + 6_000;
                for (int i = 0; i < count; i++) {
                    long deliverAt = base + i * 40L;
                    Message m = new Message(topic, ("restart-" + i).getBytes(StandardCharsets.UTF_8));
                    m.setDeliverTimeMs(deliverAt);
                    assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
                    due.put("restart-" + i, deliverAt);
                }
            } finally {
                producer.shutdown();
            }
            broker.killHard();
            broker.start();

            DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-timer-restart", topic, "*");
            try {
                List<MessageExt> received = Clients.pollAtLeast(consumer, count, 40_000);
                long now = System.currentTimeMillis();
                Set<String> bodies = new HashSet<>();
                for (MessageExt m : received) {
                    String body = new String(m.getBody(), StandardCharsets.UTF_8);
                    bodies.add(body);
                    assertTrue(m.getStoreTimestamp() >= due.get(body), body + " delivered early");
                }
                assertEquals(due.keySet(), bodies, "every pending timer delivered after the restart (at " + now + ")");
            } finally {
                consumer.shutdown();
            }
        }
    }
}
