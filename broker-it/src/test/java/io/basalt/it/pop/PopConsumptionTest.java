package io.basalt.it.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import org.apache.rocketmq.client.consumer.AckResult;
import org.apache.rocketmq.client.consumer.AckStatus;
import org.apache.rocketmq.client.consumer.PopResult;
import org.apache.rocketmq.client.consumer.PopStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.header.ExtraInfoUtil;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * POP consumption against a real broker with the official 5.2.0 client's POP calls: popped messages carry their
 * receipt; acked ones never come back, un-acked ones come back through the POP retry topic after their invisible
 * time; an ACK with the receipt CHANGE_MESSAGE_INVISIBLETIME gave for a non-first message of a batch holds; a parked
 * pop answers when a message or a retry arrives; a message never acked goes to {@code %DLQ%<group>} after the group's
 * retryMaxTimes; un-acked messages come back after a {@code kill -9}, counted as re-deliveries.
 */
class PopConsumptionTest {
    static final String GROUP = "cg-pop";

    @TempDir
    Path dir;

    @Test
    void ackedMessagesNeverComeBackUnackedOnesComeBackFromTheRetryTopic() throws Exception {
        String topic = "PopAck";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("ack"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-ack");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 4; i++) {
                    send(producer, topic, "a" + i);
                }
                // 8 s: the ACKs below are stored well before the deadline even on a loaded machine
                Map<String, MessageExt> first = popBodies(pop, topic, 4, 8000);
                for (MessageExt m : first.values()) {
                    assertNotNull(m.getProperty(MessageConst.PROPERTY_POP_CK), "receipt of " + body(m));
                    assertEquals(topic, m.getTopic());
                    assertEquals(0, m.getReconsumeTimes());
                }
                assertEquals(AckStatus.OK, pop.ack(first.get("a0")).getStatus());
                assertEquals(AckStatus.OK, pop.batchAck(topic, List.of(first.get("a1"))).getStatus());

                Map<String, MessageExt> again = popBodies(pop, topic, 2, 60_000);
                assertEquals(Set.of("a2", "a3"), again.keySet(), "only the un-acked messages come back");
                for (MessageExt m : again.values()) {
                    assertEquals(topic, m.getTopic(), "a retried message is given with its own topic");
                    assertEquals(1, m.getReconsumeTimes());
                    assertEquals(first.get(body(m)).getMsgId(), m.getMsgId(), "the message id is kept");
                    String[] receipt = ExtraInfoUtil.split(m.getProperty(MessageConst.PROPERTY_POP_CK));
                    assertEquals("%RETRY%" + GROUP + "_" + topic, ExtraInfoUtil.getRealTopic(receipt, topic, GROUP));
                    assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                }
                assertNothingComesBack(pop, topic);
            } finally {
                producer.shutdown();
            }
        }
    }

    @Test
    void ackWithTheReceiptOfAChangedInvisibleTimeHoldsForANonFirstMessage() throws Exception {
        String topic = "PopChange";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("change"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-change");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 3; i++) {
                    send(producer, topic, "c" + i);
                }
                pop.awaitQueued(topic, 0, 3);
                PopResult batch = await().atMost(Duration.ofSeconds(30)).until(
                    () -> pop.pop(topic, 0, 32, 5000, 1000), r -> r.getPopStatus() == PopStatus.FOUND
                        && r.getMsgFoundList().size() == 3);
                MessageExt second = batch.getMsgFoundList().stream()
                    .filter(m -> m.getQueueOffset() == 1).findFirst().orElseThrow();
                AckResult changed = pop.changeInvisibleTime(second, 5000);
                assertEquals(AckStatus.OK, changed.getStatus());
                String[] renewed = ExtraInfoUtil.split(changed.getExtraInfo());
                assertEquals(1, ExtraInfoUtil.getCkQueueOffset(renewed), "the new receipt names the new checkpoint");
                assertEquals(AckStatus.OK, pop.ack(second, changed.getExtraInfo()).getStatus());
                for (MessageExt m : batch.getMsgFoundList()) {
                    if (m != second) {
                        assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                    }
                }
                assertNothingComesBack(pop, topic);
            } finally {
                producer.shutdown();
            }
        }
    }

    @Test
    void aParkedPopAnswersWhenAMessageOrARetryArrives() throws Exception {
        String topic = "PopPoll";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("poll"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-poll");
            try {
                PopClient pop = client(producer, broker);
                send(producer, topic, "before");
                for (MessageExt m : popBodies(pop, topic, 1, 60_000).values()) {
                    pop.ack(m);
                }
                CompletableFuture<PopResult> parked = pop.popAsync(topic, -1, 32, 3000, 20_000);
                await().atMost(Duration.ofSeconds(10)).until(() -> pop.pollingNum(topic, -1) == 1);
                send(producer, topic, "arrived");
                PopResult result = parked.get(15, TimeUnit.SECONDS);
                assertEquals(PopStatus.FOUND, result.getPopStatus());
                assertEquals("arrived", body(result.getMsgFoundList().get(0)));
                assertEquals(0, pop.pollingNum(topic, -1));

                // not acked: its re-delivery into the v1 retry topic wakes the next parked pop (which would otherwise
                // be answered "nothing" only at the end of its 20 s)
                CompletableFuture<PopResult> retryParked = pop.popAsync(topic, -1, 32, 60_000, 20_000);
                await().atMost(Duration.ofSeconds(3)).until(() -> pop.pollingNum(topic, -1) == 1);
                PopResult retried = retryParked.get(19, TimeUnit.SECONDS);
                assertEquals(PopStatus.FOUND, retried.getPopStatus());
                assertEquals("arrived", body(retried.getMsgFoundList().get(0)));
                assertEquals(1, retried.getMsgFoundList().get(0).getReconsumeTimes());
            } finally {
                producer.shutdown();
            }
        }
    }

    @Test
    void aMessageNeverAckedGoesToTheDlqAfterTheGroupsRetryMaxTimes() throws Exception {
        String topic = "PopDlq";
        String group = "cg-pop-dlq";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("dlq"), Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-dlq");
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(broker.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                SubscriptionGroupConfig config = new SubscriptionGroupConfig();
                config.setGroupName(group);
                config.setRetryMaxTimes(1);
                admin.createAndUpdateSubscriptionGroupConfig(broker.address(), config);
                PopClient pop = new PopClient(producer.getDefaultMQProducerImpl().getMqClientFactory()
                    .getMQClientAPIImpl(), broker.brokerName(), broker.address(), group);
                send(producer, topic, "doomed");
                assertEquals(0, popBodies(pop, topic, 1, 3000).get("doomed").getReconsumeTimes());
                // not acked: re-delivered once (retryMaxTimes 1) ...
                assertEquals(1, popBodies(pop, topic, 1, 3000).get("doomed").getReconsumeTimes());
                // ... not acked again: the next copy would exceed retryMaxTimes, so it is dead-lettered
                await().atMost(Duration.ofSeconds(60)).until(() -> metric(broker,
                    "basalt_pop_dead_lettered_messages_total") >= 1);
                var dlq = admin.examineTopicStats("%DLQ%" + group);
                assertEquals(1, dlq.getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum());
                assertNothingComesBack(pop, topic);
            } finally {
                admin.shutdown();
                producer.shutdown();
            }
        }
    }

    @Test
    void unackedMessagesComeBackAfterAKillAndNoneIsLost() throws Exception {
        String topic = "PopKill";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("kill"), Map.of())) {
            broker.start();
            Set<String> bodies = new TreeSet<>();
            Map<String, Integer> acks = new HashMap<>();
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-kill");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 5; i++) {
                    send(producer, topic, "k" + i);
                    bodies.add("k" + i);
                }
                // 10 s: long enough that the ACK of k0 is stored before its deadline on a loaded machine (a later ACK
                // cannot cancel the re-delivery, by RocketMQ's rules, and k0 would rightly come back)
                Map<String, MessageExt> first = popBodies(pop, topic, 5, 10_000);
                assertEquals(bodies, first.keySet());
                assertEquals(AckStatus.OK, pop.ack(first.get("k0")).getStatus());
                acks.merge("k0", 1, Integer::sum);
            } finally {
                producer.shutdown();
            }
            broker.killHard();
            broker.start();
            producer = Clients.producer(broker, "pg-pop-kill");
            try {
                PopClient pop = client(producer, broker);
                // pop and ack until nothing has come for 20 s: the un-acked messages come back through their
                // checkpoints, and only they: the queue is not popped again from an offset consumerOffset.json may
                // have lost (the broker raises it past the stored checkpoints at start-up), and a checkpoint is
                // revived once
                Map<String, Integer> afterRestart = new HashMap<>();
                await().during(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(150)).until(() -> {
                    PopResult r = pop.pop(topic, -1, 32, 60_000, 500);
                    if (r.getPopStatus() != PopStatus.FOUND) {
                        return true;
                    }
                    for (MessageExt m : r.getMsgFoundList()) {
                        assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                        acks.merge(body(m), 1, Integer::sum);
                        afterRestart.merge(body(m), 1, Integer::sum);
                    }
                    return false;
                });
                assertEquals(Map.of("k1", 1, "k2", 1, "k3", 1, "k4", 1), afterRestart,
                    "exactly the un-acked messages came back, each once; the acked k0 never");
                assertEquals(bodies, acks.keySet(), "every message acked, none lost");
                assertTrue(acks.values().stream().allMatch(n -> n == 1), "each message delivered and acked once: " + acks);
                assertTrue(metric(broker, "basalt_pop_revived_messages_total") >= 4,
                    "the re-deliveries are counted");
            } finally {
                producer.shutdown();
            }
        }
    }

    /**
     * A kill -9 that loses the last writes of consumerOffset.json (the files are put back as they were after the
     * first pop): the broker raises the offset past the checkpoints it stored, so the second pop's messages are not
     * popped again; the un-acked ones come back once each through their checkpoints, the acked one never.
     */
    @Test
    void aKillThatLosesTheLastOffsetWritesPopsNothingTwice() throws Exception {
        String topic = "PopLost";
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("lost"), Map.of())) {
            broker.start();
            Path config = broker.storeDir().resolve("config");
            Path kept = dir.resolve("lost-kept");
            java.nio.file.Files.createDirectories(kept);
            String[] files = {"popCheckPointScanStart.json", "consumerOffset.json"};
            DefaultMQProducer producer = Clients.producer(broker, "pg-pop-lost");
            try {
                PopClient pop = client(producer, broker);
                for (int i = 0; i < 5; i++) {
                    send(producer, topic, "k" + i);
                }
                Map<String, MessageExt> first = new HashMap<>();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    PopResult r = pop.pop(topic, 0, 2 - first.size(), 60_000, 1000);
                    if (r.getPopStatus() == PopStatus.FOUND) {
                        r.getMsgFoundList().forEach(m -> first.put(body(m), m));
                    }
                    return first.size() >= 2;
                });
                assertEquals(Set.of("k0", "k1"), first.keySet());
                for (MessageExt m : first.values()) {
                    assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                }
                Pattern offsetTwo = Pattern.compile("\"" + topic + "@" + GROUP + "\"\\s*:\\s*\\{\\s*\"0\"\\s*:\\s*2\\b");
                await().atMost(Duration.ofSeconds(30)).until(() -> java.nio.file.Files.exists(config.resolve(files[0]))
                    && offsetTwo.matcher(java.nio.file.Files.readString(config.resolve(files[1]))).find());
                // the scan start first: a copy of it is never newer than the offsets copied after it
                for (String name : files) {
                    java.nio.file.Files.copy(config.resolve(name), kept.resolve(name));
                }
                assertTrue(offsetTwo.matcher(java.nio.file.Files.readString(kept.resolve(files[1]))).find());
                Map<String, MessageExt> second = popBodies(pop, topic, 3, 10_000);
                assertEquals(Set.of("k2", "k3", "k4"), second.keySet());
                assertEquals(AckStatus.OK, pop.ack(second.get("k2")).getStatus());
            } finally {
                producer.shutdown();
            }
            broker.killHard();
            for (String name : files) {
                java.nio.file.Files.copy(kept.resolve(name), config.resolve(name),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                java.nio.file.Files.deleteIfExists(config.resolve(name + ".bak"));
            }
            broker.start();
            producer = Clients.producer(broker, "pg-pop-lost");
            try {
                PopClient pop = client(producer, broker);
                Map<String, Integer> afterRestart = new HashMap<>();
                await().during(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(150)).until(() -> {
                    PopResult r = pop.pop(topic, -1, 32, 60_000, 500);
                    if (r.getPopStatus() != PopStatus.FOUND) {
                        return true;
                    }
                    for (MessageExt m : r.getMsgFoundList()) {
                        assertEquals(AckStatus.OK, pop.ack(m).getStatus());
                        afterRestart.merge(body(m), 1, Integer::sum);
                    }
                    return false;
                });
                assertEquals(Map.of("k3", 1, "k4", 1), afterRestart,
                    "only the un-acked messages of the lost pop, once each; nothing popped again");
            } finally {
                producer.shutdown();
            }
        }
    }

    private static PopClient client(DefaultMQProducer producer, BrokerProcess broker) {
        return new PopClient(producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl(),
            broker.brokerName(), broker.address(), GROUP);
    }

    private static void send(DefaultMQProducer producer, String topic, String body) throws Exception {
        assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic, body.getBytes(StandardCharsets.UTF_8)),
            (mqs, msg, arg) -> mqs.get(0), null).getSendStatus());
    }

    /** Pops until {@code count} distinct bodies arrived (each popped message stays un-acked). */
    private static Map<String, MessageExt> popBodies(PopClient pop, String topic, int count, long invisibleMs) {
        Map<String, MessageExt> got = new HashMap<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            PopResult r = pop.pop(topic, -1, 32, invisibleMs, 1000);
            if (r.getPopStatus() == PopStatus.FOUND) {
                for (MessageExt m : r.getMsgFoundList()) {
                    got.put(body(m), m);
                }
            }
            return got.size() >= count;
        });
        return got;
    }

    /** Nothing is popped for longer than the revive of a 3–4 s invisible time takes. */
    private static void assertNothingComesBack(PopClient pop, String topic) {
        List<String> extra = new ArrayList<>();
        await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(20)).until(() -> {
            PopResult r = pop.pop(topic, -1, 32, 60_000, 500);
            if (r.getPopStatus() == PopStatus.FOUND) {
                r.getMsgFoundList().forEach(m -> extra.add(body(m)));
            }
            return extra.isEmpty();
        });
    }

    private static String body(MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    private static double metric(BrokerProcess broker, String name) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(text);
            if (!m.find()) {
                throw new AssertionError("no " + name + " in the metrics");
            }
            return Double.parseDouble(m.group(1));
        }
    }
}
