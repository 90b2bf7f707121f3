package io.basalt.store.recovery;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.FlushDiskType;
import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.StoredMessage;

/**
 * kill -9 of a broker-like process in the middle of SYNC_FLUSH appends: a child JVM ({@link CrashChild})
 * appends and prints each acknowledged offset; the test SIGKILLs it at a random moment
 * ({@link Process#destroyForcibly()} on Linux), recovers the store, and finds every acknowledged
 * record intact, at its offset, exactly once.
 */
class CommitLogKillTest {
    private static final Logger LOG = LoggerFactory.getLogger(CommitLogKillTest.class);
    private static final int KILLS = 2;

    @TempDir
    Path dir;

    private Process child;
    private Thread reader;

    @AfterEach
    void killChild() throws Exception {
        if (child != null && child.isAlive()) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        if (reader != null) {
            reader.join(10_000);
        }
    }

    private record Ack(long seq, long offset, int size) {
    }

    @Test
    void everyAcknowledgedRecordSurvivesKillNineExactlyOnce() throws Exception {
        long seed = System.nanoTime();
        LOG.info("seed {}", seed);
        Random random = new Random(seed);
        Path root = dir.resolve("store");
        Map<Long, Ack> acked = new HashMap<>();
        for (int round = 0; round < KILLS; round++) {
            // Each round restarts on the store the previous kill left: recovery, then more appends.
            int target = 200 + random.nextInt(4000);
            ConcurrentLinkedQueue<Ack> acks = runAndKill(root, target, round * (long) CrashChild.MAX_MESSAGES);
            for (Ack a : acks) {
                assertTrue(acked.put(a.seq(), a) == null, "seq " + a.seq() + " acknowledged twice");
            }
            LOG.info("round {}: killed after {} acks (target {})", round, acks.size(), target);
            assertTrue(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "a killed store leaves its abort marker");
            verify(root, acked, round);
        }
    }

    private ConcurrentLinkedQueue<Ack> runAndKill(Path root, int target, long firstSeq) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-cp",
            System.getProperty("java.class.path"), CrashChild.class.getName(), root.toString(),
            Long.toString(firstSeq));
        pb.redirectError(dir.resolve("child-stderr.log").toFile());
        child = pb.start();
        child.getOutputStream().close();
        ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
        Process p = child;
        reader = new Thread(() -> readAcks(p, acks), "KillTestAckReader");
        reader.start();
        await().atMost(Duration.ofSeconds(90)).until(() -> acks.size() >= target || !p.isAlive());
        assertTrue(p.isAlive(), "the child ended before it was killed; see child-stderr.log");
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the killed child did not exit");
        reader.join(30_000);
        assertEquals(137, p.exitValue(), "SIGKILL exit status");
        return acks;
    }

    private static void readAcks(Process p, ConcurrentLinkedQueue<Ack> acks) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                // A line cut by the kill has no END: it was never fully acknowledged to us.
                if (line.startsWith("ACK ") && line.endsWith(" END")) {
                    String[] f = line.split(" ");
                    acks.add(new Ack(Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3])));
                }
            }
        } catch (IOException e) {
            LOG.warn("ack reader stopped: {}", e.toString());
        }
    }

    private void verify(Path root, Map<Long, Ack> acked, int round) throws Exception {
        CommitLog log = CommitLog.open(CrashFiles.config(root, FlushDiskType.SYNC_FLUSH, false));
        long end;
        try {
            log.load();
            end = log.maxOffset();
        } finally {
            log.shutdown();
        }
        CrashFiles.Contents contents = CrashFiles.read(root.resolve("commitlog"), CrashFiles.FILE_SIZE);
        assertEquals(end, contents.end(), "round " + round + ": recovered end is where the valid records end");
        Map<Long, StoredMessage> byOffset = new HashMap<>();
        Map<String, Integer> copies = new HashMap<>();
        for (StoredMessage m : contents.messages()) {
            byOffset.put(m.physicalOffset(), m);
            copies.merge(m.property("KEYS"), 1, Integer::sum);
        }
        for (Map.Entry<Long, Ack> e : acked.entrySet()) {
            Ack a = e.getValue();
            StoredMessage m = byOffset.get(a.offset());
            assertNotNull(m, "round " + round + ": acknowledged seq " + a.seq() + " at " + a.offset() + " is gone");
            assertEquals(a.size(), m.storeSize());
            assertEquals("seq" + a.seq(), m.property("KEYS"));
            assertArrayEquals(CrashChild.body(a.seq()), m.body(), "round " + round + ": body of seq " + a.seq());
        }
        for (Map.Entry<String, Integer> c : copies.entrySet()) {
            assertEquals(1, c.getValue(), "round " + round + ": " + c.getKey() + " stored more than once");
        }
    }
}
