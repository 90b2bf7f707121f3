package io.basalt.it.reliability;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *   <li>duplicates only for what was in flight: after the kill, before the restart, the test reads the progress the
 *       broker had made durable: {@code config/delayOffset.json} (per level, the next SCHEDULE_TOPIC_XXXX offset to
 *       deliver) and {@code config/timercheck}'s lastReadTimeMs (the first wheel slot not completely delivered).
 *       A message stored twice must lie at or past that progress: a delay-level send whose SCHEDULE_TOPIC_XXXX
 *       offset (its send result's queue offset) is at or past its level's persisted offset, or a timer whose slot
 *       (its TIMER_OUT_MS) is at or past lastReadTimeMs. Anything before it was durably recorded as delivered and
 *       must not be put again. The count of duplicates is reported next to the number of deliveries in the last
 *       second before the kill (delayOffset.json is written within 100 ms of a change, timercheck every
 *       {@code timerFlushIntervalMs} = 1 s, so in-flight work is about that second's).</li>
 * </ul>
 * Figures: acknowledged, delivered before the kill, in the last second and last window before it, duplicates,
 * lost, early, maximum lateness.
 */
class DueMessagesCrashTest {
    private static final String TOPIC = "DueCrashTopic";
    private static final int QUEUES = 4;
    private static final int PRODUCER_THREADS = 4;
    private static final long PRECISION_MS = 100;
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
            "timerWheelEnable", "true", "timerPrecisionMs", Long.toString(PRECISION_MS), "mappedFileSizeCommitLog", Integer.toString(16 << 20)))) {
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
            Progress progress;
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), QUEUES)) {
                await().atMost(ofSeconds(40)).pollInterval(ofMillis(20)).until(() -> {
                    log.add(reader.readNew());
                    return log.total() >= total * 3L / 10;
                });
                killedAt = System.currentTimeMillis();
                broker.killHard();
                progress = Progress.read(broker.storeDir());
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
            Progress durable = progress;
            List<String> duplicatedBehindProgress = plan.all().stream()
                .filter(s -> log.copies(s.key()) > 1 && !durable.mayReplay(s, log.timerOutMs(s.key())))
                .map(s -> s.key() + " " + s.kind() + " offset " + s.queueOffset() + " slot " + log.timerOutMs(s.key()))
                .limit(20).toList();
            long replayable = plan.all().stream().filter(s -> log.firstStored(s.key()) <= killedAt
                && durable.mayReplay(s, log.timerOutMs(s.key()))).count();
            long duplicates = log.duplicates(plan);
            List<String> early = log.early(plan);
            List<String> missing = log.missing(plan);
            Figures.of("due-messages-crash").put("seed", seed).put("acknowledged", plan.all().size())
                .put("sending-ms", sent - t0).put("delivered-before-kill", beforeKill)
                .put("delivered-last-second-before-kill", lastSecond)
                .put("delivered-before-kill-not-yet-durable", replayable)
                .put("duplicates", duplicates).put("lost", missing.size()).put("early", early.size())
                .put("max-lateness-ms", log.maxLatenessMs(plan))
                .put("seconds", (System.nanoTime() - started) / 1_000_000_000L).report();
            System.out.println("RELIABILITY due-messages-crash max lateness by kind (ms): " + log.maxLatenessByKind(plan));
            assertEquals(List.of(), missing, "acknowledged but never delivered");
            assertEquals(List.of(), early, "delivered before due");
            assertEquals(0, log.damaged(), "records whose body is not their key");
            assertEquals(List.of(), duplicatedBehindProgress, "delivered twice although the durable progress at the kill ("
                + durable + ") had passed it");
            assertTrue(duplicates <= replayable, duplicates + " duplicates, " + replayable
                + " delivered before the kill and not yet recorded as delivered");
            assertTrue(beforeKill > 0 && beforeKill < plan.all().size(), "the kill fell while messages were being delivered");
        }
    }

    /** The delivery progress a broker had made durable: delayOffset.json's table and timercheck's lastReadTimeMs. */
    private record Progress(Map<Integer, Long> levelOffsets, long lastReadTimeMs) {
        private static final Pattern ENTRY = Pattern.compile("\"?(\\d+)\"?\\s*:\\s*(\\d+)");

        static Progress read(Path store) throws IOException {
            Map<Integer, Long> offsets = new HashMap<>();
            Path file = store.resolve("config/delayOffset.json");
            if (Files.exists(file)) {
                String json = Files.readString(file);
                int table = json.indexOf("offsetTable");
                if (table >= 0) {
                    String body = json.substring(json.indexOf('{', table) + 1, json.indexOf('}', table));
                    Matcher m = ENTRY.matcher(body);
                    while (m.find()) {
                        offsets.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
                    }
                }
            }
            Path check = store.resolve("config/timercheck");
            long lastRead = 0;
            if (Files.exists(check) && Files.size(check) >= 8) {
                lastRead = ByteBuffer.wrap(Files.readAllBytes(check)).getLong(0);
            }
            return new Progress(offsets, lastRead);
        }

        /** Whether a second delivery of {@code s} is allowed: the durable progress had not passed it. */
        boolean mayReplay(DueMessages.Sent s, long timerOutMs) {
            if (s.level() > 0) {
                return s.queueOffset() >= levelOffsets.getOrDefault(s.level(), 0L);
            }
            return timerOutMs >= 0 && timerOutMs / PRECISION_MS * PRECISION_MS >= lastReadTimeMs;
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
