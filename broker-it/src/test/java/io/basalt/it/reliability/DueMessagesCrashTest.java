package io.basalt.it.reliability;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.DeliveryLog;
import io.basalt.it.DueMessages;
import io.basalt.it.TopicReader;

/**
 * {@code kill -9} of a broker while it delivers thousands of delay-level and timer messages. The official 5.2.0
 * producer sends {@code basalt.reliability.timedMessages} (CI: 3,000) messages, a quarter each of delay levels
 * 3..8 (10–20 s), absolute timers ({@code setDeliverTimeMs}), {@code setDelayTimeSec} and {@code setDelayTimeMs},
 * due uniformly over 10–20 s; when 30 % of them are in the topic the broker is killed and restarted. The topic is
 * read record by record (queue offsets from 0, no consumer offsets) until every acknowledged send is there:
 * <ul>
 *   <li>none lost: every acknowledged send has a record;</li>
 *   <li>none early: no record's store timestamp precedes its send's due time (lower bound, {@link DueMessages});</li>
 *   <li>duplicates only for what was in flight: a message stored twice must have had its first copy stored in the
 *       last {@value #IN_FLIGHT_MS} ms before the kill. Why that window: delayOffset.json is written within
 *       100 ms of a change, and the timer checkpoint every {@code timerFlushIntervalMs} (1 s) naming the first
 *       slot not completely delivered; a slot of {@code timerPrecisionMs} (100 ms) is delivered well within the
 *       second interval. So a record stored earlier than two flush intervals before the kill is covered by a
 *       durable checkpoint and must not be put again.</li>
 * </ul>
 * Figures: acknowledged, delivered before the kill, in the last second and last window before it, duplicates,
 * lost, early, maximum lateness.
 */
class DueMessagesCrashTest {
    private static final String TOPIC = "DueCrashTopic";
    private static final int QUEUES = 4;
    private static final int PRODUCER_THREADS = 4;
    private static final long IN_FLIGHT_MS = 2000;
    /** Levels 3..8 are 10, 12, 14, 16, 18, 20 s. */
    private static final String LEVELS = "1s 5s 10s 12s 14s 16s 18s 20s";

    @TempDir
    Path dir;

    @Test
    void killDuringDeliveryLosesNoneDeliversNoneEarlyAndDuplicatesOnlyWhatWasInFlight() throws Exception {
        int total = Figures.scaled("timedMessages", 3000);
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("RELIABILITY due-messages-crash seed=" + seed);
        long started = System.nanoTime();
        try (BrokerProcess broker = BrokerProcess.create(dir, Map.of("messageDelayLevel", LEVELS,
            "timerWheelEnable", "true", "timerPrecisionMs", "100", "mappedFileSizeCommitLog", Integer.toString(16 << 20)))) {
            broker.start();
            createTopic(broker);
            DueMessages plan = new DueMessages(TOPIC);
            AtomicLong sendFailures = new AtomicLong();
            long t0 = System.currentTimeMillis();
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCER_THREADS; p++) {
                int thread = p;
                Random random = new Random(seed + p);
                Thread producer = new Thread(() -> send(broker, plan, thread, total, t0, random, sendFailures),
                    "due-producer-" + p);
                producer.start();
                producers.add(producer);
            }
            for (Thread t : producers) {
                t.join(60_000);
            }
            long sent = System.currentTimeMillis();
            assertEquals(0, sendFailures.get(), "sends refused by a healthy broker");

            DeliveryLog log = new DeliveryLog();
            long killedAt;
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), QUEUES)) {
                await().atMost(ofSeconds(40)).pollInterval(ofMillis(20)).until(() -> {
                    log.add(reader.readNew());
                    return log.total() >= total * 3L / 10;
                });
                killedAt = System.currentTimeMillis();
                broker.killHard();
                broker.start();
                await().atMost(ofSeconds(60)).pollInterval(ofMillis(100)).until(() -> {
                    log.add(reader.readNew());
                    return log.hasAll(plan);
                });
                // 2 s longer: a second copy of a message would show here
                await().during(ofSeconds(2)).atMost(ofSeconds(10)).pollInterval(ofMillis(100)).until(() -> {
                    log.add(reader.readNew());
                    return true;
                });
            }
            broker.stopGracefully();

            long beforeKill = plan.all().stream().filter(s -> log.firstStored(s.key()) <= killedAt).count();
            long lastSecond = plan.all().stream().filter(s -> log.firstStored(s.key()) <= killedAt
                && log.firstStored(s.key()) > killedAt - 1000).count();
            long lastWindow = plan.all().stream().filter(s -> log.firstStored(s.key()) <= killedAt
                && log.firstStored(s.key()) > killedAt - IN_FLIGHT_MS).count();
            List<String> duplicatedOutsideWindow = plan.all().stream()
                .filter(s -> log.copies(s.key()) > 1 && log.firstStored(s.key()) <= killedAt - IN_FLIGHT_MS)
                .map(DueMessages.Sent::key).limit(20).toList();
            long duplicates = log.duplicates(plan);
            List<String> early = log.early(plan);
            List<String> missing = log.missing(plan);
            Figures.of("due-messages-crash").put("seed", seed).put("acknowledged", plan.all().size())
                .put("sending-ms", sent - t0).put("delivered-before-kill", beforeKill)
                .put("delivered-last-second-before-kill", lastSecond)
                .put("delivered-last-" + IN_FLIGHT_MS + "ms-before-kill", lastWindow)
                .put("duplicates", duplicates).put("lost", missing.size()).put("early", early.size())
                .put("max-lateness-ms", log.maxLatenessMs(plan))
                .put("seconds", (System.nanoTime() - started) / 1_000_000_000L).report();
            System.out.println("RELIABILITY due-messages-crash max lateness by kind (ms): " + log.maxLatenessByKind(plan));
            assertEquals(List.of(), missing, "acknowledged but never delivered");
            assertEquals(List.of(), early, "delivered before due");
            assertEquals(0, log.damaged(), "records whose body is not their key");
            assertEquals(List.of(), duplicatedOutsideWindow, "delivered twice although first delivered more than "
                + IN_FLIGHT_MS + " ms before the kill");
            assertTrue(duplicates <= lastWindow, duplicates + " duplicates, " + lastWindow + " delivered in the last "
                + IN_FLIGHT_MS + " ms before the kill");
            assertTrue(beforeKill > 0 && beforeKill < plan.all().size(), "the kill fell while messages were being delivered");
        }
    }

    /** Thread {@code thread}'s share of the sends: kinds round-robin, due uniformly over 10–20 s after t0. */
    private static void send(BrokerProcess broker, DueMessages plan, int thread, int total, long t0, Random random,
                             AtomicLong failures) {
        DueMessages mine = new DueMessages(TOPIC);
        try {
            DefaultMQProducer producer = Clients.producer(broker, "pg-due-crash-" + thread);
            try {
                for (int i = thread; i < total; i += PRODUCER_THREADS) {
                    String key = "due-" + i;
                    long dueIn = 10_000 + random.nextInt(10_000) - (System.currentTimeMillis() - t0);
                    try {
                        switch (i % 4) {
                            case 0 -> {
                                int level = 3 + (i / 4) % 6;
                                mine.sendDelayLevel(producer, key, level, 10_000 + (level - 3) * 2000L);
                            }
                            case 1 -> mine.sendDeliverAt(producer, key, System.currentTimeMillis() + dueIn);
                            case 2 -> mine.sendDelaySec(producer, key, (int) Math.max(1, dueIn / 1000));
                            default -> mine.sendDelayMs(producer, key, dueIn);
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }
            } finally {
                producer.shutdown();
            }
        } catch (Exception e) {
            failures.incrementAndGet();
        }
        synchronized (plan) {
            mine.all().forEach(plan::record);
        }
    }

    private static void createTopic(BrokerProcess broker) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, QUEUES, QUEUES, 6));
        } finally {
            admin.shutdown();
        }
    }
}
