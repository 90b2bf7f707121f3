package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;

/**
 * A store directory with pending delay-level and timer messages moves between the real RocketMQ 5.2.0 broker
 * and a Basalt broker, both ways, with the official 5.2.0 client on both sides. The first broker takes the
 * sends (delay level 1 and two longer levels of a short {@code messageDelayLevel}; timers by {@code setDelayTimeSec},
 * {@code setDeliverTimeMs} and {@code setDelayTimeMs}; due 15–20 s later when Basalt stops first, 25–30 s when
 * RocketMQ does, as it takes 10–15 s to stop), delivers the 1 s level (a consumer
 * receives it there, so {@code delayOffset.json} has moved past it) and is stopped cleanly before the rest is
 * due; the other broker opens the same store with the same settings. A new consumer group then reads the topic
 * from its first offset: every send delivered exactly once (the 1 s level too: the second broker must not
 * deliver it again), each pending one by the second broker (its record stored after the first one stopped),
 * none stored before it was due, bodies and keys intact.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class StoreMoveTest {
    private static final String TOPIC = "MovedTopic";
    /** Levels 1..5 of both brokers: 1 s, 15 s, 20 s, 25 s, 30 s. */
    private static final String LEVELS = "1s 15s 20s 25s 30s";
    private static final int PER_KIND = 12;

    /** The settings both brokers run with (besides the file sizes both launchers share). */
    private static final Map<String, String> SETTINGS = Map.of("messageDelayLevel", LEVELS,
        "timerWheelEnable", "true", "timerPrecisionMs", "1000");

    @TempDir
    Path dir;
    private RocketMqNameServer nameServer;

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
    }

    @AfterEach
    void stopNameServer() {
        nameServer.close();
    }

    private StoreSide basalt() throws Exception {
        return StoreSide.basalt(dir, SETTINGS);
    }

    /** The real RocketMQ broker keeping its store where the Basalt broker of {@link #basalt()} keeps it. */
    private StoreSide rocketMq() throws Exception {
        return StoreSide.rocketMq(dir, "rocketmq", nameServer, SETTINGS);
    }

    @Test
    void pendingDelayedAndTimerMessagesOfARocketMqStoreAreDeliveredByBasalt() throws Exception {
        try (StoreSide rocketMq = rocketMq(); StoreSide basalt = basalt()) {
            // RocketMQ takes 10-15 s to stop (its store alone sleeps 3 s), and a delayed message falling due while
            // it stops is lost by RocketMQ itself (its put fails and 5.2.0 moves past it): levels of 25 and 30 s
            move(rocketMq, basalt, 4, 25_000);
        }
    }

    @Test
    void pendingDelayedAndTimerMessagesOfABasaltStoreAreDeliveredByRocketMq() throws Exception {
        try (StoreSide basalt = basalt(); StoreSide rocketMq = rocketMq()) {
            move(basalt, rocketMq, 2, 15_000);
        }
    }

    /**
     * Sends to {@code first}, moves the store to {@code second}; pending are levels {@code level} and
     * {@code level + 1} (of {@code dueMs} and {@code dueMs} + 5 s) and timers due {@code dueMs} + 1..3 s.
     */
    private void move(StoreSide first, StoreSide second, int level, long dueMs) throws Exception {
        DueMessages delivered = new DueMessages(TOPIC);
        DueMessages pending = new DueMessages(TOPIC);
        long stopped;
        try {
            first.start();
            first.createTopic(TOPIC, 4);
            DefaultMQProducer producer = producer(first);
            try {
                long t0 = System.currentTimeMillis();
                for (int i = 0; i < PER_KIND; i++) {
                    delivered.sendDelayLevel(producer, "level1-" + i, 1, 1000);
                    pending.sendDelayLevel(producer, "level" + level + "-" + i, level, dueMs);
                    pending.sendDelayLevel(producer, "level" + (level + 1) + "-" + i, level + 1, dueMs + 5000);
                    pending.sendDelaySec(producer, "delaySec-" + i, (int) (dueMs / 1000) + 1);
                    pending.sendDeliverAt(producer, "deliverAt-" + i, t0 + dueMs + 3000 + i * 10L);
                    pending.sendDelayMs(producer, "delayMs-" + i, dueMs + 2500);
                }
            } finally {
                producer.shutdown();
            }
            // the first broker delivers the 1 s level before the move
            DeliveryLog before = new DeliveryLog();
            DefaultLitePullConsumer early = consumer(first, "cg-before-move");
            try {
                await().atMost(Duration.ofSeconds(15)).until(() -> {
                    before.add(early.poll(500));
                    return before.hasAll(delivered);
                });
            } finally {
                early.shutdown();
            }
            assertEquals(List.of(), before.early(delivered), "the first broker delivered before due");
            long stopping = System.currentTimeMillis();
            first.stopGracefully();
            stopped = System.currentTimeMillis();
            System.out.printf("store move: sent and 1 s level delivered %d ms before the earliest pending due time;"
                + " the first broker stopped in %d ms%n", pending.earliestDue() - stopping, stopped - stopping);
        } catch (Throwable e) {
            throw new AssertionError(first.describe(), e);
        }

        DeliveryLog after = new DeliveryLog();
        long started = 0;
        try {
            second.start();
            started = System.currentTimeMillis();
            DefaultLitePullConsumer consumer = consumer(second, "cg-after-move");
            try {
                await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    after.add(consumer.poll(500));
                    return after.hasAll(pending) && after.hasAll(delivered);
                });
                // a little longer: a second delivery of a message would show here
                long grace = System.currentTimeMillis() + 2000;
                while (System.currentTimeMillis() < grace) {
                    after.add(consumer.poll(200));
                }
            } finally {
                consumer.shutdown();
            }
            second.stopGracefully();
        } catch (Throwable e) {
            throw new AssertionError("missing after the move: " + after.missing(pending) + " " + after.missing(delivered)
                + "\n" + first.describe() + "\n" + second.describe(), e);
        }

        System.out.printf("store move: %d pending + %d delivered before; first stopped %d ms before the earliest due;"
            + " second started %d ms after that; max lateness by kind %s ms; duplicates %d%n", pending.all().size(),
            delivered.all().size(), pending.earliestDue() - stopped, started - stopped, after.maxLatenessByKind(pending),
            after.duplicates(pending) + after.duplicates(delivered));
        String context = "\n" + second.describe();
        assertEquals(List.of(), after.duplicated(pending, 20), "pending messages delivered twice" + context);
        assertEquals(List.of(), after.duplicated(delivered, 20), "messages delivered before the move, again after it" + context);
        assertEquals(List.of(), after.early(pending), "delivered before due");
        assertEquals(List.of(), after.storedBefore(pending, stopped), "pending messages the first broker delivered"
            + " (the move proves nothing for them: it stopped too late)");
        assertEquals(0, after.damaged(), "deliveries whose body is not their key");
        assertEquals(pending.all().size() + delivered.all().size(), after.total(), "deliveries");
        assertTrue(pending.all().size() == 5 * PER_KIND && delivered.all().size() == PER_KIND);
    }

    private static DefaultMQProducer producer(StoreSide side) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("pg-store-move");
        p.setNamesrvAddr(side.namesrvAddr());
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setRetryTimesWhenSendFailed(0);
        p.start();
        return p;
    }

    private static DefaultLitePullConsumer consumer(StoreSide side, String group) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(side.namesrvAddr());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setAutoCommitIntervalMillis(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(TOPIC, "*");
        c.start();
        return c;
    }
}
