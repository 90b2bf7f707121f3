package io.basalt.store.timer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pending timers per real topic, persisted as RocketMQ 5.2.0's {@code config/timermetrics}:
 * {@code {"dataVersion":{"counter":..,"stateVersion":..,"timestamp":..},"timingCount":{"T":{"count":..,"timeStamp":..}}}}
 * (fastjson's alphabetical field order, non-ASCII escaped), written through {@code .tmp} with the previous
 * file kept as {@code .bak}. Counts move on the enqueue (+1, a cancel −1) and delivery (−1) threads;
 * the flush thread persists. Thread-safe.
 */
public final class TimerMetrics {
    private static final Pattern TOPIC_ENTRY = Pattern.compile(
        "\"((?:[^\"\\\\]|\\\\.)*)\"\\s*:\\s*\\{\\s*\"count\"\\s*:\\s*(-?\\d+)\\s*,\\s*\"timeStamp\"\\s*:\\s*(-?\\d+)\\s*}");
    private static final Pattern VERSION_FIELD = Pattern.compile("\"(counter|stateVersion|timestamp)\"\\s*:\\s*(-?\\d+)");

    private final Path file;
    private final LongSupplier clock;
    private final Map<String, Metric> counts = new ConcurrentHashMap<>();
    private final AtomicLong counter = new AtomicLong();
    private volatile long stateVersion;
    private volatile long timestamp;

    private static final class Metric {
        final AtomicLong count = new AtomicLong();
        volatile long timeStamp;
    }

    public TimerMetrics(Path file, LongSupplier clock) {
        this.file = file;
        this.clock = clock;
        this.timestamp = clock.getAsLong();
    }

    /** Reads the file (or its {@code .bak} when the file is unreadable); missing means all zero. */
    public void load() throws IOException {
        String json = readText(file);
        if (json == null) {
            json = readText(file.resolveSibling(file.getFileName() + ".bak"));
        }
        if (json == null) {
            return;
        }
        int timing = json.indexOf("\"timingCount\"");
        String version = timing >= 0 ? json.substring(0, timing) : json;
        int dv = version.indexOf("\"dataVersion\"");
        if (dv >= 0) {
            Matcher m = VERSION_FIELD.matcher(version.substring(dv));
            while (m.find()) {
                long v = Long.parseLong(m.group(2));
                switch (m.group(1)) {
                    case "counter" -> counter.set(v);
                    case "stateVersion" -> stateVersion = v;
                    default -> timestamp = v;
                }
            }
        }
        if (timing >= 0) {
            Matcher m = TOPIC_ENTRY.matcher(json.substring(timing + "\"timingCount\"".length()));
            while (m.find()) {
                Metric metric = new Metric();
                metric.count.set(Long.parseLong(m.group(2)));
                metric.timeStamp = Long.parseLong(m.group(3));
                counts.put(unescape(m.group(1)), metric);
            }
        }
    }

    private static String readText(Path p) {
        try {
            if (!Files.exists(p)) {
                return null;
            }
            String s = Files.readString(p, StandardCharsets.UTF_8);
            return s.isBlank() ? null : s;
        } catch (IOException e) {
            return null;
        }
    }

    /** Adds {@code delta} to {@code topic}'s pending count. */
    public void add(String topic, int delta) {
        if (topic == null) {
            return;
        }
        Metric m = counts.computeIfAbsent(topic, t -> new Metric());
        m.count.addAndGet(delta);
        m.timeStamp = clock.getAsLong();
    }

    /** As {@link #add} for the topic whose name hashes to {@code topicHash} (a timer-log unit keeps only the hash). */
    public void addByTopicHash(int topicHash, int delta) {
        for (Map.Entry<String, Metric> e : counts.entrySet()) {
            if (e.getKey().hashCode() == topicHash) {
                e.getValue().count.addAndGet(delta);
                e.getValue().timeStamp = clock.getAsLong();
                return;
            }
        }
    }

    public long count(String topic) {
        Metric m = counts.get(topic);
        return m == null ? 0 : m.count.get();
    }

    /** Sum over all topics, negative counts (after a crash re-enqueued cancels) as 0. */
    public long total() {
        long sum = 0;
        for (Metric m : counts.values()) {
            sum += Math.max(0, m.count.get());
        }
        return sum;
    }

    /** The JSON as RocketMQ writes it (GET_TIMER_METRICS's body). */
    public String toJson() {
        StringBuilder sb = new StringBuilder(64 + counts.size() * 48);
        sb.append("{\"dataVersion\":{\"counter\":").append(counter.get()).append(",\"stateVersion\":").append(stateVersion)
            .append(",\"timestamp\":").append(timestamp).append("},\"timingCount\":{");
        boolean first = true;
        for (Map.Entry<String, Metric> e : new TreeMap<>(counts).entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            appendString(sb, e.getKey());
            sb.append(":{\"count\":").append(e.getValue().count.get()).append(",\"timeStamp\":")
                .append(e.getValue().timeStamp).append('}');
        }
        return sb.append("}}").toString();
    }

    /** Bumps the data version and writes the file: {@code .tmp}, forced, old file to {@code .bak}, renamed. */
    public synchronized void persist() throws IOException {
        counter.incrementAndGet();
        timestamp = clock.getAsLong();
        byte[] bytes = toJson().getBytes(StandardCharsets.UTF_8);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (var ch = java.nio.channels.FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(false);
        }
        if (Files.exists(file)) {
            Files.copy(file, file.resolveSibling(file.getFileName() + ".bak"), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void appendString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                if (n == 'u' && i + 4 < s.length()) {
                    sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                } else {
                    sb.append(n);
                }
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
