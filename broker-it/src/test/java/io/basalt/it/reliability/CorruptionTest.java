package io.basalt.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * With the broker stopped, each kind of store file is damaged in turn on a copy of one store holding
 * acknowledged messages, and the broker started: either it refuses to start with a message naming the
 * file (and the offset, for the CommitLog), or it starts and every acknowledged message is readable
 * exactly once. Cases: CommitLog tail torn past the durable point; a flipped byte in a flushed record
 * (refused, then skipped with recoverySkipCorruptRecords); a consume-queue tail and a whole
 * consume-queue file removed; an index file's header garbage; the checkpoint garbage; topics.json,
 * consumerOffset.json and subscriptionGroup.json truncated, emptied or garbage, with and without a
 * good .bak; topics.json with fewer queues than the store holds.
 */
class CorruptionTest {
    private static final String TOPIC = "CorruptTopic";
    private static final Map<String, String> CONF = Map.of("mappedFileSizeCommitLog", Integer.toString(256 * 1024),
        "flushDiskType", "SYNC_FLUSH");

    @TempDir
    Path dir;

    private final Figures figures = Figures.of("corruption");
    private Path pristine;
    private Path brokerDir;
    private Set<String> acked;

    @Test
    void everyDamagedFileKindIsRepairedOrRefusedNeverSilentlyLost() throws Exception {
        int messages = Figures.scaled("corruption.messages", 600);
        brokerDir = dir.resolve("b");
        pristine = dir.resolve("pristine");
        acked = produce(messages);
        copyTree(brokerDir.resolve("store"), pristine);
        figures.put("acknowledged", acked.size());

        // store damage the broker repairs, two kinds per start to stay within the suite's budget
        startsWithEverything("commitlog tail torn + index header garbage", store -> {
            Path last = commitLogFiles(store).get(commitLogFiles(store).size() - 1);
            long end = lastNonZero(last) + 1;
            byte[] garbage = new byte[300];
            new Random(1).nextBytes(garbage);
            write(last, end, garbage);
            byte[] header = new byte[40];
            new Random(2).nextBytes(header);
            write(newest(store.resolve("index")), 0, header);
        }, "torn tail truncated", "Index file");

        String[] flipped = new String[1];
        Path[] flippedFile = new Path[1];
        refused("flushed commitlog record corrupt", store -> {
            List<Path> files = commitLogFiles(store);
            Path old = files.get(files.size() - 2);   // among the files a clean start checks, not the tail
            flippedFile[0] = old;
            flipped[0] = flipBody(old);
        }, s -> s.contains("CommitLog file") && s.contains(flippedFile[0].getFileName().toString())
            && s.contains("is corrupt at offset"));
        // the same store with the operator's flag: the record is skipped, every other one kept
        BrokerProcess skipping = broker(Map.of("recoverySkipCorruptRecords", "true"));
        try {
            skipping.start();
            Set<String> expected = new HashSet<>(acked);
            expected.remove(flipped[0]);
            readExactlyOnce(skipping, expected, "skip flag");
            assertTrue(logs().contains("recoverySkipCorruptRecords: skipping"), "the skip is reported");
            figures.add("skippedRecords", 1).add("casesRun", 1);
        } finally {
            skipping.close();
        }

        startsWithEverything("consume queue tail + a queue file removed, checkpoint garbage, fewer queues in "
            + "topics.json", store -> {
            Path f = newest(store.resolve("consumequeue/" + TOPIC + "/0"));
            long end = lastNonZero(f) + 1;
            long from = Math.max(0, end - 20 * 10);
            write(f, from, new byte[(int) (end - from)]);   // its last 10 entries lost
            Files.delete(newest(store.resolve("consumequeue/" + TOPIC + "/1")));
            byte[] garbage = new byte[4096];
            new Random(3).nextBytes(garbage);
            write(store.resolve("checkpoint"), 0, garbage);
            fewerQueues(store);
        }, "entries were lost while the broker was stopped", "raising readQueueNums to 4");
        Path[] cut = new Path[1];
        refused("consume queue file cut short", store -> {
            cut[0] = newest(store.resolve("consumequeue/" + TOPIC + "/2"));
            try (FileChannel ch = FileChannel.open(cut[0], StandardOpenOption.WRITE)) {
                ch.truncate(lastNonZero(cut[0]) + 1);
            }
        }, s -> s.contains(cut[0].toString()));
        // each metadata file damaged, its .bak good: one start per rotation of the damage kinds
        List<String> jsonFiles = List.of("topics.json", "consumerOffset.json", "subscriptionGroup.json");
        int rotations = Math.min(3, Figures.scaled("corruption.jsonRotations", 1));
        for (int r = 0; r < rotations; r++) {
            int rotation = r;
            startsWithEverything("metadata files damaged with .bak, rotation " + r, store -> {
                for (int i = 0; i < jsonFiles.size(); i++) {
                    Path f = store.resolve("config/" + jsonFiles.get(i));
                    Files.copy(f, f.resolveSibling(jsonFiles.get(i) + ".bak"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    damageJson(f, (i + rotation) % 3);   // truncated, emptied, garbage
                }
            }, jsonFiles.toArray(new String[0]));
        }
        // without a usable .bak: start-up stops naming the file
        for (String file : jsonFiles) {
            refused(file + " garbage without .bak", store -> {
                Path f = store.resolve("config/" + file);
                Files.deleteIfExists(f.resolveSibling(file + ".bak"));
                damageJson(f, 2);
            }, s -> s.contains(file) && s.contains("corrupt"));
        }

        figures.report();
    }

    // ---- cases ------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface Damage {
        void apply(Path store) throws IOException;
    }

    @FunctionalInterface
    private interface Check {
        boolean holds(String text);
    }

    private BrokerProcess broker(Map<String, String> extra) throws IOException {
        Map<String, String> conf = new HashMap<>(CONF);
        conf.putAll(extra);
        return BrokerProcess.create(brokerDir, conf);
    }

    /** Restores the pristine store, damages it, starts: every acknowledged message must be read once. */
    private void startsWithEverything(String name, Damage damage, String... logged) throws Exception {
        restore(damage);
        BrokerProcess b = broker(Map.of());
        try {
            b.start();
            readExactlyOnce(b, acked, name);
            String text = logs();
            for (String line : logged) {
                assertTrue(text.contains(line), name + ": the log says " + line);
            }
            figures.add("casesRun", 1).add("startedWithEverything", 1);
        } finally {
            b.close();
        }
    }

    /** Restores the pristine store, damages it, starts: the start must fail with a message the check accepts. */
    private void refused(String name, Damage damage, Check check) throws Exception {
        restore(damage);
        BrokerProcess b = broker(Map.of());
        try {
            assertThrows(IllegalStateException.class, b::start, name + ": start-up must stop");
            String text = logs();
            assertTrue(check.holds(text), name + ": the message names the file:\n" + tailOf(text));
            figures.add("casesRun", 1).add("refusedStartsAsExpected", 1);
        } finally {
            b.close();
        }
    }

    private void restore(Damage damage) throws IOException {
        Path store = brokerDir.resolve("store");
        deleteTree(store);
        deleteTree(brokerDir.resolve("logs"));
        Files.deleteIfExists(brokerDir.resolve("broker.out"));
        copyTree(pristine, store);
        damage.apply(store);
    }

    private void readExactlyOnce(BrokerProcess b, Set<String> expected, String name) throws Exception {
        DefaultLitePullConsumer c = Clients.litePull(b, "cg-" + Math.abs(name.hashCode()), TOPIC, "*");
        List<MessageExt> read;
        try {
            read = Clients.pollAtLeast(c, expected.size(), 30_000);
            read.addAll(c.poll(500));
        } finally {
            c.shutdown();
        }
        Map<String, Integer> seen = new HashMap<>();
        for (MessageExt m : read) {
            seen.merge(m.getKeys(), 1, Integer::sum);
            assertEquals("body-" + m.getKeys(), new String(m.getBody(), StandardCharsets.UTF_8).substring(0,
                ("body-" + m.getKeys()).length()), name);
        }
        long lost = expected.stream().filter(k -> !seen.containsKey(k)).count();
        long duplicated = seen.values().stream().filter(n -> n > 1).count();
        figures.add("lost", lost).add("duplicated", duplicated);
        assertEquals(0, lost, name + ": acknowledged messages lost");
        assertEquals(0, duplicated, name + ": messages read twice");
        assertEquals(expected, seen.keySet(), name);
    }

    private Set<String> produce(int n) throws Exception {
        BrokerProcess b = broker(Map.of());
        Set<String> ok = new HashSet<>();
        try {
            b.start();
            DefaultMQProducer p = Clients.producer(b, "pg-corruption");
            try {
                String pad = "x".repeat(400);
                for (int i = 0; i < n; i++) {
                    String key = Integer.toString(i);
                    Message m = new Message(TOPIC, "TagA", key, ("body-" + key + "-" + pad).getBytes(StandardCharsets.UTF_8));
                    if (p.send(m).getSendStatus() == SendStatus.SEND_OK) {
                        ok.add(key);
                    }
                }
            } finally {
                p.shutdown();
            }
            // the consumer offsets and groups the JSON cases damage must exist
            readExactlyOnce(b, ok, "first read");
            b.stopGracefully();
        } finally {
            b.close();
        }
        assertFalse(Files.exists(brokerDir.resolve("store/abort")));
        return ok;
    }

    // ---- file helpers -----------------------------------------------------------------------------

    /** topics.json (and its .bak) say 1 queue for the topic the store holds 4 of. */
    private static void fewerQueues(Path store) throws IOException {
        for (String name : List.of("topics.json", "topics.json.bak")) {
            Path f = store.resolve("config/" + name);
            if (Files.exists(f)) {
                String s = Files.readString(f);
                int at = s.indexOf("\"" + TOPIC + "\"");
                String tail = s.substring(at).replaceFirst("\"readQueueNums\"\\s*:\\s*4", "\"readQueueNums\":1")
                    .replaceFirst("\"writeQueueNums\"\\s*:\\s*4", "\"writeQueueNums\":1");
                Files.writeString(f, s.substring(0, at) + tail);
            }
        }
    }

    private String logs() throws IOException {
        StringBuilder text = new StringBuilder();
        Path out = brokerDir.resolve("broker.out");
        if (Files.exists(out)) {
            text.append(Files.readString(out));
        }
        Path logs = brokerDir.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> s = Files.walk(logs)) {
                for (Path p : s.filter(Files::isRegularFile).toList()) {
                    text.append(new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
                }
            }
        }
        return text.toString();
    }

    private static String tailOf(String text) {
        return text.substring(Math.max(0, text.length() - 4000));
    }

    private static List<Path> commitLogFiles(Path store) throws IOException {
        try (Stream<Path> s = Files.list(store.resolve("commitlog"))) {
            return s.filter(p -> p.getFileName().toString().matches("\\d{20}")).sorted().toList();
        }
    }

    private static Path newest(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).max(Comparator.naturalOrder()).orElseThrow();
        }
    }

    private static long lastNonZero(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] != 0) {
                return i;
            }
        }
        return -1;
    }

    /** Flips a byte of the body of a record near the middle of the file; returns that message's key. */
    private static String flipBody(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        // a third into the file's records (not its zero tail), so the flipped record is neither the first nor the last
        int at = text.indexOf("body-", (int) (lastNonZero(file) / 3));
        assertTrue(at >= 0, "a message body in " + file);
        int dash = text.indexOf('-', at + 5);
        String key = text.substring(at + 5, dash);
        write(file, dash + 3, new byte[] {(byte) (bytes[dash + 3] ^ 0x20)});
        return key;
    }

    private static void damageJson(Path f, int how) throws IOException {
        byte[] good = Files.readAllBytes(f);
        byte[] bad = switch (how) {
            case 0 -> java.util.Arrays.copyOf(good, good.length / 2);
            case 1 -> new byte[0];
            default -> {
                byte[] g = new byte[Math.max(64, good.length)];
                new Random(f.hashCode()).nextBytes(g);
                yield g;
            }
        };
        Files.write(f, bad);
    }

    private static void write(Path file, long position, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
