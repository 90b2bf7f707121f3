package io.basalt.it.reliability;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SYNC_FLUSH broker (syncFlushTimeout 1000 ms) whose CommitLog force() the test stalls and then fails
 * through the store's fault injection seam (the JVM system property basalt.test.faultInjection naming a
 * control file). (a) While force() stalls for 3 s, four official 5.2.0 producers' sends are answered
 * FLUSH_DISK_TIMEOUT, each in less than the stall, and none SEND_OK; once the stall ends sends are
 * SEND_OK again and every message is read exactly once. (b) Once force() fails, the store fails stop:
 * every later send is refused (never SEND_OK), a consumer still reads every message stored before, the
 * broker logs exactly one ERROR line (the fail-stop cause) and the metrics endpoint shows
 * basalt_store_fail_stopped 1.
 */
class SlowAndFailingDiskTest {
    private static final String TOPIC = "SlowDiskTopic";
    private static final byte[] BODY = new byte[512];
    private static final long SYNC_FLUSH_TIMEOUT_MS = 1000;
    private static final long STALL_MS = 3000;
    private static final int SENDERS = 4;

    @TempDir
    Path dir;

    @Test
    void aStalledFsyncAnswersFlushDiskTimeoutInTimeAndAFailedFsyncFailsTheWholeBrokerStop() throws Exception {
        int before = Figures.scaled("slowdisk.before", 200);
        Path control = dir.resolve("fault-control");
        Files.writeString(control, "ok");
        Set<String> stored = ConcurrentHashMap.newKeySet();  // SEND_OK or FLUSH_DISK_TIMEOUT: in the CommitLog
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("broker"), Map.of(
                "flushDiskType", "SYNC_FLUSH", "syncFlushTimeout", Long.toString(SYNC_FLUSH_TIMEOUT_MS)))) {
            broker.withJvmOptions("-Dbasalt.test.faultInjection=" + control).start();
            assertTrue(broker.output().contains("Fault injection is active"), "the seam warns at start");
            List<DefaultMQProducer> producers = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(SENDERS);
            try {
                for (int i = 0; i < SENDERS; i++) {
                    DefaultMQProducer p = Clients.producer(broker, "pg-slow-disk-" + i);
                    p.setRetryTimesWhenSendFailed(0);
                    producers.add(p);
                }
                DefaultMQProducer producer = producers.get(0);
                for (int i = 0; i < before; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(message("a" + i)).getSendStatus());
                    stored.add("a" + i);
                }

                // (a) force() stalls: every answer until the stall ends is FLUSH_DISK_TIMEOUT
                Files.writeString(control, "stall 60000");
                long stallStart = System.nanoTime();
                AtomicLong maxTimeoutLatencyMs = new AtomicLong();
                List<Future<Map<SendStatus, Integer>>> senders = new ArrayList<>();
                for (int t = 0; t < SENDERS; t++) {
                    DefaultMQProducer p = producers.get(t);
                    String prefix = "s" + t + "-";
                    senders.add(pool.submit(() -> {
                        Map<SendStatus, Integer> answers = new HashMap<>();
                        for (int i = 0; System.nanoTime() - stallStart < TimeUnit.MILLISECONDS.toNanos(STALL_MS); i++) {
                            long sent = System.nanoTime();
                            SendResult r = p.send(message(prefix + i));
                            long latencyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
                            answers.merge(r.getSendStatus(), 1, Integer::sum);
                            if (r.getSendStatus() == SendStatus.FLUSH_DISK_TIMEOUT) {
                                stored.add(prefix + i);
                                maxTimeoutLatencyMs.accumulateAndGet(latencyMs, Math::max);
                            }
                        }
                        return answers;
                    }));
                }
                Map<SendStatus, Integer> duringStall = new HashMap<>();
                for (Future<Map<SendStatus, Integer>> f : senders) {
                    f.get(30, TimeUnit.SECONDS).forEach((s, n) -> duringStall.merge(s, n, Integer::sum));
                }
                // every answer above came before the stall ends here
                Files.writeString(control, "ok");
                int timeouts = duringStall.getOrDefault(SendStatus.FLUSH_DISK_TIMEOUT, 0);
                assertEquals(Map.of(SendStatus.FLUSH_DISK_TIMEOUT, timeouts), duringStall,
                    "answers while force() stalled: " + duringStall);
                assertTrue(timeouts >= SENDERS, "too few FLUSH_DISK_TIMEOUT answers: " + timeouts);
                assertTrue(maxTimeoutLatencyMs.get() < STALL_MS,
                    "FLUSH_DISK_TIMEOUT came after " + maxTimeoutLatencyMs.get() + " ms, not within syncFlushTimeout");

                for (int i = 0; i < before; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(message("b" + i)).getSendStatus(), "after the stall");
                    stored.add("b" + i);
                }
                assertEachOnce(stored, readAll(broker, "cg-after-stall", stored.size()));

                // (b) force() fails: the store fails stop, sends are refused, reads go on
                Files.writeString(control, "fail");
                int refused = 0;
                List<String> refusals = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    DefaultMQProducer p = producers.get(i % SENDERS);
                    try {
                        SendResult r = p.send(message("c" + i));
                        assertNotEquals(SendStatus.SEND_OK, r.getSendStatus(), "SEND_OK after force() failed: c" + i);
                        refusals.add(r.getSendStatus().name());
                    } catch (MQClientException | MQBrokerException e) {
                        MQBrokerException answer = brokerAnswer(e);
                        refusals.add(answer.getResponseCode() + " " + answer.getErrorMessage());
                    }
                    refused++;
                }
                assertEachOnceIgnoring(stored, readAll(broker, "cg-after-fail", stored.size()), "c");

                long errorLines = broker.output().lines().filter(l -> l.contains(" ERROR ")).count();
                assertEquals(1, errorLines, "ERROR lines after the fail-stop:\n" + broker.output());
                assertTrue(broker.output().lines().anyMatch(l -> l.contains(" ERROR ") && l.contains("read-only")
                    && l.contains("injected fsync failure")), "the ERROR line names the cause");
                await().atMost(Duration.ofSeconds(10)).until(() -> metric(broker, "basalt_store_fail_stopped") == 1.0);

                Figures.of("slow-and-failing-disk")
                    .put("stall (ms)", STALL_MS)
                    .put("syncFlushTimeout (ms)", SYNC_FLUSH_TIMEOUT_MS)
                    .put("timeout answers", timeouts)
                    .put("max latency of a timed-out send (ms)", maxTimeoutLatencyMs.get())
                    .put("refused after fail-stop", refused)
                    .put("first refusal", refusals.get(0))
                    .put("last refusal", refusals.get(refusals.size() - 1))
                    .put("acknowledged", stored.size())
                    .put("lost", 0)
                    .put("duplicated", 0)
                    .report();
            } finally {
                producers.forEach(DefaultMQProducer::shutdown);
                pool.shutdownNow();
            }
        }
    }

    private static double metric(BrokerProcess broker, String name) throws Exception {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(BrokerMemorySampler.metrics(broker));
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    /** The broker's refusal behind a failed send; anything else (a timeout, say) fails the test. */
    private static MQBrokerException brokerAnswer(Exception e) {
        Throwable t = e;
        while (t != null && !(t instanceof MQBrokerException)) {
            t = t.getCause();
        }
        if (t == null) {
            throw new AssertionError("a send failed without a broker answer", e);
        }
        return (MQBrokerException) t;
    }

    private static Message message(String key) {
        return new Message(TOPIC, "T", key, BODY);
    }

    /** Reads the topic from offset 0 with a new group until {@code count} messages arrived (or 30 s). */
    private static Map<String, Integer> readAll(BrokerProcess broker, String group, int count) throws Exception {
        DefaultLitePullConsumer consumer = Clients.litePull(broker, group, TOPIC, "*");
        Map<String, Integer> seen = new HashMap<>();
        try {
            for (MessageExt m : Clients.pollAtLeast(consumer, count, 30_000)) {
                seen.merge(m.getKeys(), 1, Integer::sum);
            }
        } finally {
            consumer.shutdown();
        }
        return seen;
    }

    private static void assertEachOnce(Set<String> stored, Map<String, Integer> seen) {
        assertEachOnceIgnoring(stored, seen, null);
        assertEquals(stored, seen.keySet(), "read what was never stored");
    }

    /** Every stored key read once; keys starting with {@code refusedPrefix} (refused sends) at most once. */
    private static void assertEachOnceIgnoring(Set<String> stored, Map<String, Integer> seen, String refusedPrefix) {
        Set<String> missing = new HashSet<>(stored);
        missing.removeAll(seen.keySet());
        assertTrue(missing.isEmpty(), missing.size() + " of " + stored.size() + " stored messages unread");
        seen.forEach((key, n) -> {
            assertEquals(1, n, "read more than once: " + key);
            assertTrue(stored.contains(key) || refusedPrefix != null && key.startsWith(refusedPrefix), "read but never sent: " + key);
        });
    }
}
