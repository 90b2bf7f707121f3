package io.basalt.it.reliability;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose whole directory (store and config files) lives on a 64 MiB tmpfs the test mounts,
 * with 4 MiB CommitLog files and SYNC_FLUSH: the disk is filled (a placeholder file takes the rest)
 * while an official 5.2.0 producer sends. Sends then fail fast with a refusal, never SEND_OK for what
 * no consumer can read; a consumer reading from offset 0 gets every acknowledged message while the
 * disk is full; deleting the placeholder lets sends resume without a restart; a restart with the disk
 * full again starts; and every acknowledged message is read exactly once. Root only (mount).
 */
class DiskFullTest {
    private static final String TOPIC = "DiskFullTopic";
    private static final byte[] BODY = new byte[1024];

    @TempDir
    Path dir;
    private Path mount;
    private boolean mounted;

    @BeforeEach
    void mountTmpfs() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        mount = Files.createDirectory(dir.resolve("disk"));
        mounted = run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mount.toString()) == 0;
        assumeTrue(mounted, "mount -t tmpfs failed");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            assertEquals(0, run("umount", mount.toString()), "umount");
        }
    }

    @Test
    void aFullDiskRefusesSendsKeepsEveryAcknowledgedMessageReadableAndWritesResumeOnceSpaceIsFreed() throws Exception {
        int before = Figures.scaled("diskfull.before", 2_000);
        int after = Figures.scaled("diskfull.after", 500);
        Set<String> acked = new HashSet<>();
        long refused = 0;
        long firstRefusalMs;
        String refusal;
        Path placeholder = mount.resolve("placeholder");
        try (BrokerProcess broker = BrokerProcess.create(mount.resolve("broker"), Map.of(
                "flushDiskType", "SYNC_FLUSH", "cleanFileForciblyEnable", "false"))
                .withOutputDir(dir)) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-disk-full");
            producer.setRetryTimesWhenSendFailed(0);
            try {
                sendAll(producer, "a", before, acked);
                fill(placeholder);

                // the current CommitLog file still has room, the next one cannot be allocated, the disk
                // monitor sees the full disk: sends are refused within at most a few thousand more
                refusal = null;
                long start = System.nanoTime();
                for (int i = 0; refusal == null && i < 20_000; i++) {
                    try {
                        SendResult r = producer.send(message("b" + i));
                        assertEquals(SendStatus.SEND_OK, r.getSendStatus(), "SYNC_FLUSH answers SEND_OK or refuses");
                        acked.add("b" + i);
                    } catch (MQClientException | MQBrokerException e) {
                        MQBrokerException answer = brokerAnswer(e);
                        assertEquals(ResponseCode.SERVICE_NOT_AVAILABLE, answer.getResponseCode(), answer.getErrorMessage());
                        refused++;
                        refusal = answer.getResponseCode() + " " + answer.getErrorMessage();
                    }
                }
                firstRefusalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(refusal != null, "a full disk never refused a send");
                for (int i = 0; i < 20; i++) {
                    try {
                        producer.send(message("c" + i));
                        acked.add("c" + i);
                    } catch (MQClientException | MQBrokerException e) {
                        brokerAnswer(e);
                        refused++;
                    }
                }
                assertTrue(refused >= 20, "sends went on succeeding on a full disk: " + refused + " refused");

                assertEachOnce(acked, readAll(broker, "cg-during", acked.size()));

                Files.delete(placeholder);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    try {
                        producer.send(message("probe"));
                        acked.add("probe");
                        return true;
                    } catch (MQClientException | MQBrokerException e) {
                        brokerAnswer(e);
                        return false;
                    }
                });
                sendAll(producer, "d", after, acked);
                assertEachOnce(acked, readAll(broker, "cg-after", acked.size()));
            } finally {
                producer.shutdown();
            }
            broker.stopGracefully();

            fill(placeholder);  // a restart with (almost) no free space
            broker.start();
            assertEachOnce(acked, readAll(broker, "cg-restart", acked.size()));
            Figures.of("disk-full")
                .put("acknowledged", acked.size())
                .put("lost", 0)
                .put("duplicated", 0)
                .put("refused sends", refused)
                .put("first refusal after (ms)", firstRefusalMs)
                .put("refusal", refusal)
                .put("files deleted early", 0)
                .put("restart free bytes", Files.getFileStore(mount).getUsableSpace())
                .report();
        }
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

    private static void sendAll(DefaultMQProducer producer, String prefix, int count, Set<String> acked) throws Exception {
        for (int i = 0; i < count; i++) {
            assertEquals(SendStatus.SEND_OK, producer.send(message(prefix + i)).getSendStatus());
            acked.add(prefix + i);
        }
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

    private static void assertEachOnce(Set<String> acked, Map<String, Integer> seen) {
        Set<String> missing = new HashSet<>(acked);
        missing.removeAll(seen.keySet());
        assertTrue(missing.isEmpty(), missing.size() + " of " + acked.size() + " acknowledged messages unread");
        for (String key : acked) {
            assertEquals(1, seen.get(key), "read more than once: " + key);
        }
    }

    /** Writes {@code file} until the filesystem is full. */
    private static void fill(Path file) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            // 64 KiB chunks, then single pages: the same (empty) free space on every run
            for (int chunk : new int[] {1 << 16, 1 << 12, 1}) {
                ByteBuffer bytes = ByteBuffer.allocate(chunk);
                try {
                    while (true) {
                        bytes.clear();
                        while (bytes.hasRemaining()) {
                            out.write(bytes);
                        }
                    }
                } catch (IOException e) {
                    if (!String.valueOf(e.getMessage()).contains("No space left")) {
                        throw e;
                    }
                }
            }
        }
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        return p.exitValue();
    }
}
