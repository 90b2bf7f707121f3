package io.basalt.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Raw sockets send malformed and mutated RocketMQ frames (lengths 0, negative and 0x7fffffff, header lengths
 * past the frame, garbage JSON and binary headers, wrong field types, unknown codes, oversize bodies, partial
 * frames held open) and hold many idle connections, while an official producer sends: the producer gets no
 * error, the broker's RSS, heap and direct memory stay bounded, Netty's paranoid leak detector reports nothing,
 * and a fresh client is served afterwards.
 */
class HostileInputTest {
    /** The kinds of bad input; each is one connection that writes it (and reads whatever comes back). */
    enum Kind {
        LENGTH_ZERO, LENGTH_NEGATIVE, LENGTH_MAX, HEADER_PAST_FRAME, GARBAGE_JSON_HEADER, GARBAGE_BINARY_HEADER,
        WRONG_FIELD_TYPES, UNKNOWN_CODE, OVERSIZE_FRAME, OVERSIZE_BODY, PARTIAL_FRAME_HELD, RANDOM_BYTES, MUTATED_SEND
    }

    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void hostileFramesAndIdleConnectionsHarmNeitherTheProducerNorTheBrokersMemory() throws Exception {
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("HostileInputTest seed=" + seed + " (rerun with -Dbasalt.reliability.seed=" + seed + ")");
        int seconds = Figures.scaled("hostileSeconds", 15);
        int idleWanted = Figures.scaled("hostileIdleConnections", 1500);
        // the test JVM holds one fd per idle connection, the broker one too: stay well under both limits
        int idle = (int) Math.min(idleWanted, Math.max(0, openFileLimit() - 1000));
        int senders = 4;
        Figures figures = Figures.of("hostile-input").put("seed", seed);
        BrokerProcess broker = BrokerProcess.create(dir, Map.of(
                "remotingPartialFrameBudgetBytes", Long.toString(32 * MIB),
                "remotingFrameCompleteTimeoutMillis", "3000"))
            .withJvmOptions("-Dio.netty.leakDetection.level=paranoid");
        Map<Kind, AtomicLong> sent = new ConcurrentHashMap<>();
        List<Socket> idleSockets = new ArrayList<>();
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong producerErrors = new AtomicLong();
        List<Throwable> firstErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-hostile");
            producer.send(new Message("HostileTopic", "T", "warm-up".getBytes(StandardCharsets.UTF_8)));
            BrokerMemorySampler memory = BrokerMemorySampler.start(broker);
            AtomicBoolean running = new AtomicBoolean(true);
            Thread producing = new Thread(() -> {
                for (int i = 0; running.get(); i++) {
                    try {
                        if (producer.send(new Message("HostileTopic", "T", ("m-" + i).getBytes(StandardCharsets.UTF_8)))
                                .getSendStatus() == SendStatus.SEND_OK) {
                            acknowledged.incrementAndGet();
                        } else {
                            producerErrors.incrementAndGet();
                        }
                    } catch (Exception e) {
                        producerErrors.incrementAndGet();
                        if (firstErrors.size() < 5) {
                            firstErrors.add(e);
                        }
                    }
                }
            }, "hostile-producer");
            producing.start();
            List<Thread> hostile = new ArrayList<>();
            List<Socket> held = java.util.Collections.synchronizedList(new ArrayList<>());
            try {
                for (int i = 0; i < idle; i++) {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress("127.0.0.1", broker.port()), 5_000);
                    idleSockets.add(s);
                }
                long deadline = System.nanoTime() + seconds * 1_000_000_000L;
                for (int t = 0; t < senders; t++) {
                    Random random = new Random(seed + t);
                    Thread sender = new Thread(() -> {
                        while (System.nanoTime() < deadline) {
                            Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
                            sent.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                            try {
                                sendHostile(broker.port(), kind, random, held);
                            } catch (IOException closedByBroker) {
                                // the broker closing the connection is the expected answer to most of these
                            }
                        }
                    }, "hostile-sender-" + t);
                    hostile.add(sender);
                    sender.start();
                }
                for (Thread t : hostile) {
                    t.join();
                }
            } finally {
                running.set(false);
                producing.join();
                for (Socket s : held) {
                    s.close();
                }
            }
            Map<String, Long> closed = BrokerMemorySampler.connectionsClosed(broker);
            long idleStillOpen = idleSockets.stream().filter(HostileInputTest::stillOpen).count();
            for (Socket s : idleSockets) {
                s.close();
            }
            // a full GC in the broker, then more traffic: paranoid leak detection reports a leaked buffer when it
            // finds it collected, at a later allocation
            new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(broker.pid()), "GC.run").redirectErrorStream(true)
                .redirectOutput(dir.resolve("jcmd.out").toFile()).start().waitFor();
            producer.shutdown();
            DefaultMQProducer fresh = Clients.producer(broker, "pg-hostile-fresh");
            SendStatus freshStatus;
            try {
                freshStatus = fresh.send(new Message("HostileTopic", "T", "after".getBytes(StandardCharsets.UTF_8)))
                    .getSendStatus();
                for (int i = 0; i < 50; i++) {
                    fresh.send(new Message("HostileTopic", "T", ("after-" + i).getBytes(StandardCharsets.UTF_8)));
                }
            } finally {
                fresh.shutdown();
            }
            memory.close();
            List<String> leaks = leakLines(broker);
            sent.forEach((kind, n) -> figures.put("sent." + kind.name().toLowerCase(), n.get()));
            figures.put("badInputsSent", sent.values().stream().mapToLong(AtomicLong::get).sum())
                .put("idleConnections", idle).put("idleStillOpenAtEnd", idleStillOpen)
                .put("acknowledged", acknowledged.get()).put("producerErrors", producerErrors.get())
                .put("rssStartMiB", memory.rssAtStart() / MIB).put("rssMaxMiB", memory.rssMax() / MIB)
                .put("heapMaxMiB", memory.heapMax() / MIB).put("directMaxMiB", memory.directMax() / MIB)
                .put("leaks", leaks.size());
            closed.forEach((reason, n) -> figures.put("closed." + reason, n));
            figures.report();
            assertEquals(0, producerErrors.get(), () -> "producer errors, first: " + firstErrors);
            assertTrue(acknowledged.get() > 0, "the producer sent during the run");
            assertEquals(List.of(), leaks, "Netty's leak detector found nothing");
            assertEquals(SendStatus.SEND_OK, freshStatus, "a fresh client is served after the run");
            assertTrue(closed.getOrDefault("malformed_frame", 0L) > 0, "malformed frames closed their connections");
            // bounds far below what unbounded buffering of these inputs would take (the declared lengths alone
            // are GiBs), generous against JIT, GC and page-cache noise
            assertTrue(memory.rssMax() < memory.rssAtStart() + 400 * MIB,
                "RSS high-water " + memory.rssMax() / MIB + " MiB from " + memory.rssAtStart() / MIB + " MiB");
            assertTrue(memory.directMax() < 160 * MIB, "direct memory high-water " + memory.directMax() / MIB + " MiB");
        } finally {
            for (Socket s : idleSockets) {
                s.close();
            }
            broker.close();
        }
    }

    /** One connection writing one bad input of {@code kind}, then reading until the broker closes or stays silent. */
    private static void sendHostile(int port, Kind kind, Random random, List<Socket> held) throws IOException {
        Socket s = new Socket();
        boolean keep = false;
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(300);
            OutputStream out = s.getOutputStream();
            switch (kind) {
                case LENGTH_ZERO -> out.write(ints(0));
                case LENGTH_NEGATIVE -> out.write(ints(-1 - random.nextInt(Integer.MAX_VALUE)));
                case LENGTH_MAX -> {
                    out.write(ints(Integer.MAX_VALUE));
                    out.write(randomBytes(random, 4096));
                }
                case HEADER_PAST_FRAME -> {
                    byte[] header = randomBytes(random, 16);
                    out.write(ints(4 + header.length, 1000 + random.nextInt(1 << 20)));
                    out.write(header);
                }
                case GARBAGE_JSON_HEADER -> out.write(frame(0, randomBytes(random, 1 + random.nextInt(2000)), new byte[0]));
                case GARBAGE_BINARY_HEADER -> out.write(frame(1, randomBytes(random, 1 + random.nextInt(2000)), new byte[0]));
                case WRONG_FIELD_TYPES -> out.write(frame(0, json(random.nextBoolean()
                    ? "{\"code\":\"send\",\"opaque\":[1,2],\"flag\":{},\"language\":7,\"version\":\"x\"}"
                    : "{\"code\":10,\"opaque\":1,\"flag\":0,\"language\":\"JAVA\",\"version\":453,"
                        + "\"extFields\":{\"topic\":[1],\"queueId\":\"q\",\"sysFlag\":\"" + random.nextInt() + "\","
                        + "\"bornTimestamp\":\"-5\",\"producerGroup\":{\"a\":1}}}"), randomBytes(random, 64)));
                case UNKNOWN_CODE -> out.write(frame(0, json("{\"code\":" + (5000 + random.nextInt(60000))
                    + ",\"opaque\":" + random.nextInt() + ",\"flag\":0,\"language\":\"JAVA\",\"version\":453}"), new byte[0]));
                case OVERSIZE_FRAME -> {
                    out.write(ints(64 * (int) MIB + random.nextInt(1 << 20), 0x40));
                    out.write(randomBytes(random, 64 * 1024));
                }
                case OVERSIZE_BODY -> out.write(frame(0, sendHeader(random), randomBytes(random, 2 * (int) MIB)));
                case PARTIAL_FRAME_HELD -> {
                    byte[] whole = frame(0, sendHeader(random), randomBytes(random, 512 * 1024));
                    out.write(whole, 0, 8 + random.nextInt(whole.length - 8));
                    out.flush();
                    held.add(s);
                    keep = true;
                    return;
                }
                case RANDOM_BYTES -> out.write(randomBytes(random, 1 + random.nextInt(8192)));
                case MUTATED_SEND -> {
                    byte[] f = frame(0, sendHeader(random), randomBytes(random, 256));
                    for (int i = 0, flips = 1 + random.nextInt(8); i < flips; i++) {
                        f[random.nextInt(f.length)] = (byte) random.nextInt(256);
                    }
                    out.write(f);
                }
                default -> throw new IllegalStateException(kind.name());
            }
            out.flush();
            drain(s.getInputStream());
        } finally {
            if (!keep) {
                s.close();
            }
        }
    }

    /** Reads answers until the broker closes the connection or is silent for the socket timeout. */
    private static void drain(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        try {
            while (in.read(buf) >= 0) {
                // discard
            }
        } catch (java.net.SocketTimeoutException silent) {
            // the broker waits for more (an unfinished frame) or answered and kept the connection
        }
    }

    /** A SEND_MESSAGE (code 10) JSON header as the official client writes it, for a random small topic. */
    private static byte[] sendHeader(Random random) {
        return json("{\"code\":10,\"extFields\":{\"producerGroup\":\"pg-raw\",\"topic\":\"RawTopic" + random.nextInt(3)
            + "\",\"defaultTopic\":\"TBW102\",\"defaultTopicQueueNums\":\"4\",\"queueId\":\"0\",\"sysFlag\":\"0\","
            + "\"bornTimestamp\":\"" + System.currentTimeMillis() + "\",\"flag\":\"0\",\"properties\":\"\","
            + "\"reconsumeTimes\":\"0\",\"unitMode\":\"false\",\"batch\":\"false\"},\"flag\":0,\"language\":\"JAVA\","
            + "\"opaque\":" + random.nextInt(1 << 20) + ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":453}");
    }

    /** A frame: total length (excluding itself), serialize type and header length, header, body. */
    private static byte[] frame(int serializeType, byte[] header, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + body.length);
        b.putInt(4 + header.length + body.length).putInt((serializeType << 24) | header.length).put(header).put(body);
        return b.array();
    }

    private static byte[] ints(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static boolean stillOpen(Socket s) {
        try {
            s.setSoTimeout(1);
            return s.getInputStream().read() != -1 || false;
        } catch (java.net.SocketTimeoutException open) {
            return true;
        } catch (IOException closed) {
            return false;
        }
    }

    /** Soft RLIMIT_NOFILE of this JVM (from /proc/self/limits). */
    private static long openFileLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return "unlimited".equals(soft) ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return 1024;
    }

    /** Lines of the broker's log files and console output that report a Netty leak. */
    private static List<String> leakLines(BrokerProcess broker) throws IOException {
        List<String> leaks = new ArrayList<>();
        List<Path> files = new ArrayList<>(List.of(broker.dir().resolve("broker.out")));
        Path logs = broker.dir().resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> walk = Files.walk(logs)) {
                walk.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".log")).forEach(files::add);
            }
        }
        for (Path f : files) {
            if (Files.exists(f)) {
                for (String line : new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).split("\n")) {
                    if (line.contains("LEAK:")) {
                        leaks.add(f.getFileName() + ": " + line);
                    }
                }
            }
        }
        return leaks;
    }
}
