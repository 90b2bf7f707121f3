package io.basalt.it.reliability;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.DeliveryLog;
import io.basalt.it.DueMessages;
import io.basalt.it.TopicReader;

/**
 * Damaged state files of delayed delivery, with the broker stopped:
 * <ul>
 *   <li>{@code config/delayOffset.json} garbage with a good {@code .bak}: the broker starts from the backup (the
 *       level it had delivered is not delivered again, the pending level is delivered when due); both garbage:
 *       start-up stops with a message naming the file;</li>
 *   <li>the last {@code timerlog} unit torn (its first bytes kept, the rest garbage) and {@code config/timercheck}
 *       zeroed: every pending timer is still delivered (from the consume queue of {@code rmq_sys_wheel_timer}),
 *       none early; duplicates are allowed and counted.</li>
 * </ul>
 */
class DueMessagesCorruptionTest {
    private static final String TOPIC = "DueCorruptTopic";
    private static final Map<String, String> CONF = Map.of("messageDelayLevel", "1s 5s 12s", "timerWheelEnable", "true",
        "timerPrecisionMs", "1000");
    /** The timer log's unit (RocketMQ's TimerLog.UNIT_SIZE). */
    private static final int TIMER_UNIT = 52;

    @TempDir
    Path dir;

    @Test
    void corruptDelayOffsetFileFallsBackToItsBackupAndBothCorruptStopStartUp() throws Exception {
        int perLevel = Figures.scaled("dueCorruption.messages", 50);
        BrokerProcess broker = BrokerProcess.create(dir, CONF);
        try (broker) {
            broker.start();
            DueMessages delivered = new DueMessages(TOPIC);
            DueMessages pending = new DueMessages(TOPIC);
            DefaultMQProducer producer = Clients.producer(broker, "pg-due-corrupt");
            try {
                for (int i = 0; i < perLevel; i++) {
                    delivered.sendDelayLevel(producer, "level1-" + i, 1, 1000);
                    pending.sendDelayLevel(producer, "level3-" + i, 3, 12_000);
                }
            } finally {
                producer.shutdown();
            }
            Path offsets = broker.storeDir().resolve("config/delayOffset.json");
            DeliveryLog log = new DeliveryLog();
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), 4)) {
                await().atMost(ofSeconds(20)).pollInterval(ofMillis(100)).until(() -> {
                    log.add(reader.readNew());
                    return log.hasAll(delivered);
                });
            }
            // level 1 is done: its next offset, perLevel, reaches the file
            Pattern levelOneDone = Pattern.compile("\\b1\"?\\s*:\\s*" + perLevel + "\\b");
            await().atMost(ofSeconds(10)).pollInterval(ofMillis(100))
                .until(() -> Files.exists(offsets) && levelOneDone.matcher(Files.readString(offsets)).find());
            broker.stopGracefully();
            assertTrue(levelOneDone.matcher(Files.readString(offsets)).find(), Files.readString(offsets));

            Path backup = offsets.resolveSibling("delayOffset.json.bak");
            Files.copy(offsets, backup, StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(offsets, "{\"offsetTable\":{1:" + perLevel + ",3:");   // torn mid-write
            broker.start();
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), 4)) {
                DeliveryLog after = new DeliveryLog();
                await().atMost(ofSeconds(30)).pollInterval(ofMillis(100)).until(() -> {
                    after.add(reader.readNew());
                    return after.hasAll(pending);
                });
                await().during(ofSeconds(2)).atMost(ofSeconds(10)).pollInterval(ofMillis(200)).until(() -> {
                    after.add(reader.readNew());
                    return true;
                });
                assertEquals(List.of(), after.duplicated(delivered, 10), "level 1 delivered again: the .bak was not used");
                assertEquals(List.of(), after.duplicated(pending, 10), "level 3 delivered twice");
                assertEquals(List.of(), after.early(pending), "delivered before due");
                assertEquals(0, after.damaged());
                assertEquals(2L * perLevel, after.total());
            }
            broker.stopGracefully();

            Files.writeString(offsets, "garbage{");
            Files.writeString(backup, "\u0000\u0000\u0000");
            IllegalStateException refused = assertThrows(IllegalStateException.class, broker::start);
            assertTrue(refused.getMessage().contains("delayOffset.json"), "the refusal names the file: " + refused.getMessage());
            assertTrue(!broker.isAlive(), "a broker that refused to start exited");
            Figures.of("due-corruption-delay-offset").put("level1-delivered", perLevel).put("level3-pending", perLevel)
                .put("redelivered-after-bak", 0).put("both-corrupt-refused", 1).report();
        }
    }

    @Test
    void tornTimerLogTailAndZeroedCheckpointLoseNoPendingTimer() throws Exception {
        int count = Figures.scaled("dueCorruption.timers", 200);
        BrokerProcess broker = BrokerProcess.create(dir, CONF);
        try (broker) {
            broker.start();
            DueMessages timers = new DueMessages(TOPIC);
            DefaultMQProducer producer = Clients.producer(broker, "pg-timer-corrupt");
            try {
                long t0 = System.currentTimeMillis();
                for (int i = 0; i < count; i++) {
                    if (i % 2 == 0) {
                        timers.sendDelaySec(producer, "timer-" + i, 12 + i % 3);
                    } else {
                        timers.sendDeliverAt(producer, "timer-" + i, t0 + 12_000 + i * 10L);
                    }
                }
            } finally {
                producer.shutdown();
            }
            Path timerLog = broker.storeDir().resolve("timerlog");
            // every timer is in the timer log (one unit each) before the broker stops
            await().atMost(ofSeconds(10)).pollInterval(ofMillis(100))
                .until(() -> Files.isDirectory(timerLog) && writtenUnits(newest(timerLog)) >= count);
            broker.stopGracefully();

            Path log = newest(timerLog);
            long units = writtenUnits(log);
            long lastUnit = (units - 1) * TIMER_UNIT;
            byte[] garbage = new byte[TIMER_UNIT - 4];
            new Random(7).nextBytes(garbage);
            write(log, lastUnit + 4, garbage);   // the size field survived, the rest of the unit is torn
            Path check = broker.storeDir().resolve("config/timercheck");
            assertTrue(Files.exists(check), "the timer checkpoint file exists");
            write(check, 0, new byte[(int) Files.size(check)]);

            broker.start();
            DeliveryLog after = new DeliveryLog();
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), 4)) {
                await().atMost(ofSeconds(40)).pollInterval(ofMillis(100)).until(() -> {
                    after.add(reader.readNew());
                    return after.hasAll(timers);
                });
                await().during(ofSeconds(2)).atMost(ofSeconds(10)).pollInterval(ofMillis(200)).until(() -> {
                    after.add(reader.readNew());
                    return true;
                });
            } catch (RuntimeException e) {
                throw new AssertionError("missing " + after.missing(timers) + "\n" + broker.output(), e);
            }
            broker.stopGracefully();
            Figures.of("due-corruption-timer").put("pending-timers", count).put("timer-log-units", units)
                .put("duplicates", after.duplicates(timers)).put("lost", after.missing(timers).size())
                .put("early", after.early(timers).size()).report();
            assertEquals(List.of(), after.missing(timers), "pending timers lost");
            assertEquals(List.of(), after.early(timers), "delivered before due");
            assertEquals(0, after.damaged());
        }
    }

    /** Units written to a timer-log file: the units from its start up to the first whose size field is 0. */
    private static long writtenUnits(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer size = ByteBuffer.allocate(4);
            long units = 0;
            while ((units + 1) * TIMER_UNIT <= ch.size()) {
                size.clear();
                ch.read(size, units * TIMER_UNIT);
                if (size.getInt(0) != TIMER_UNIT) {
                    break;
                }
                units++;
            }
            return units;
        }
    }

    private static Path newest(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile).max(Path::compareTo)
                .orElseThrow(() -> new IllegalStateException("no file in " + directory));
        }
    }

    private static void write(Path file, long at, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), at);
        }
    }
}
