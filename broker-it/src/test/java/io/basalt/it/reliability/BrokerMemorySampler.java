package io.basalt.it.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.it.BrokerProcess;

/**
 * Samples a broker process's memory every 200 ms on a thread of its own: RSS from {@code /proc/<pid>/status}
 * (VmRSS), heap and direct buffer bytes from its Prometheus endpoint ({@code jvm_memory_used_bytes{area="heap"}},
 * {@code jvm_buffer_pool_used_bytes{pool="direct"}}), keeping the high-water marks. The test thread starts and
 * closes it and reads the marks; {@link #metrics(BrokerProcess)} reads the endpoint once.
 */
final class BrokerMemorySampler implements AutoCloseable {
    private static final Pattern HEAP = Pattern.compile("(?m)^jvm_memory_used_bytes\\{area=\"heap\"[^}]*} (\\S+)$");
    private static final Pattern DIRECT = Pattern.compile("(?m)^jvm_buffer_pool_used_bytes\\{pool=\"direct\"[^}]*} (\\S+)$");
    private static final Pattern CLOSED = Pattern.compile(
        "(?m)^basalt_remoting_connections_closed_total\\{[^}]*reason=\"([^\"]+)\"[^}]*} (\\S+)$");

    private final BrokerProcess broker;
    private final AtomicLong rssMax = new AtomicLong();
    private final AtomicLong heapMax = new AtomicLong();
    private final AtomicLong directMax = new AtomicLong();
    private final long rssAtStart;
    private final Thread thread;
    private volatile boolean running = true;

    private BrokerMemorySampler(BrokerProcess broker) throws IOException {
        this.broker = broker;
        this.rssAtStart = rssBytes(broker.pid());
        this.thread = new Thread(this::run, "broker-memory-sampler");
    }

    /** Takes the first sample (the start RSS) and starts sampling. */
    static BrokerMemorySampler start(BrokerProcess broker) throws IOException, InterruptedException {
        BrokerMemorySampler s = new BrokerMemorySampler(broker);
        s.sampleOnce();
        s.thread.start();
        return s;
    }

    private void run() {
        while (running) {
            try {
                sampleOnce();
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                // a sample missed (the endpoint busy): the next one counts
            }
        }
    }

    private void sampleOnce() throws IOException, InterruptedException {
        rssMax.accumulateAndGet(rssBytes(broker.pid()), Math::max);
        String text = metrics(broker);
        heapMax.accumulateAndGet(sum(HEAP, text), Math::max);
        directMax.accumulateAndGet(sum(DIRECT, text), Math::max);
    }

    long rssAtStart() {
        return rssAtStart;
    }

    long rssMax() {
        return rssMax.get();
    }

    long heapMax() {
        return heapMax.get();
    }

    long directMax() {
        return directMax.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
    }

    /** VmRSS of a process, in bytes. */
    static long rssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS for process " + pid);
    }

    /**
     * The broker's Prometheus text once, by a plain HTTP/1.0 request (the server closes the connection after
     * it; java.net.http's client would leave a selector thread and its file descriptors behind).
     */
    static String metrics(BrokerProcess broker) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(5_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body < 0) {
                throw new IOException("metrics endpoint answered " + response.lines().findFirst().orElse(""));
            }
            return response.substring(body + 4);
        }
    }

    /** basalt_remoting_connections_closed_total by reason (summed over the listen and fast ports). */
    static Map<String, Long> connectionsClosed(BrokerProcess broker) throws IOException {
        Map<String, Long> byReason = new TreeMap<>();
        Matcher m = CLOSED.matcher(metrics(broker));
        while (m.find()) {
            byReason.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return byReason;
    }

    private static long sum(Pattern p, String text) {
        Matcher m = p.matcher(text);
        double total = 0;
        while (m.find()) {
            total += Double.parseDouble(m.group(1));
        }
        return (long) total;
    }
}
