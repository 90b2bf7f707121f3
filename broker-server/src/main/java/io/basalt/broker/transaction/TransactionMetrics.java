package io.basalt.broker.transaction;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.basalt.broker.JsonConfigFile;

/**
 * RocketMQ's {@code TransactionMetrics}: the half messages pending per real topic (+1 when one is stored, −1 when it
 * is committed, rolled back or given up), kept in {@code config/transactionMetrics} in RocketMQ's JSON —
 * {@code {"dataVersion":{...},"transactionCount":{"T":{"count":3,"timeStamp":...}}}} — so the gauge survives a
 * restart and a store moved from RocketMQ keeps its counts. Loaded at start, written atomically (temp file, backup,
 * rename) every {@code transactionMetricFlushInterval} and at shutdown. Counts are approximate like RocketMQ's
 * (a crash loses the changes of the last interval); a count never goes below 0 here, where RocketMQ would show a
 * negative pending number after a lost file. Thread-safe; {@link #persist()} is called from one thread at a time.
 */
public final class TransactionMetrics {
    public static final String FILE_NAME = "transactionMetrics";

    private static final class Metric {
        long count;
        long timeStamp;
    }

    private final JsonConfigFile file;
    private final LongSupplier clock;
    private final ConcurrentMap<String, Metric> counts = new ConcurrentHashMap<>();
    private long stateVersion;
    private long versionTimestamp;
    private long counter;

    public TransactionMetrics(Path configDir, LongSupplier clock) {
        this.file = new JsonConfigFile(configDir.resolve(FILE_NAME));
        this.clock = clock;
    }

    /** Reads the file (or its backup); a missing file is no counts yet. */
    public synchronized void load() throws IOException {
        Optional<JsonNode> content = file.load();
        if (content.isEmpty()) {
            return;
        }
        read(content.get());
    }

    /**
     * A slave's copy of its master's counts (the JSON {@link #encode()} gives): replaces every count and the version,
     * so a promoted slave's gauge goes on from the master's last count instead of 0.
     *
     * @throws IOException when {@code json} is not this file's JSON
     */
    public synchronized void replaceWith(byte[] json) throws IOException {
        JsonNode root = JsonConfigFile.MAPPER.readTree(json);
        if (root == null || !root.path("transactionCount").isObject()) {
            throw new IOException("not transaction metrics: no transactionCount object");
        }
        counts.clear();
        read(root);
    }

    /** The file's content now, as bytes: what a master sends its slaves. */
    public byte[] encode() throws IOException {
        return JsonConfigFile.MAPPER.writeValueAsBytes(toJson());
    }

    private void read(JsonNode root) {
        JsonNode version = root.path("dataVersion");
        stateVersion = version.path("stateVersion").asLong(0);
        versionTimestamp = version.path("timestamp").asLong(0);
        counter = version.path("counter").asLong(0);
        Iterator<Map.Entry<String, JsonNode>> topics = root.path("transactionCount").fields();
        while (topics.hasNext()) {
            Map.Entry<String, JsonNode> e = topics.next();
            Metric m = new Metric();
            m.count = e.getValue().path("count").asLong(0);
            m.timeStamp = e.getValue().path("timeStamp").asLong(0);
            counts.put(e.getKey(), m);
        }
    }

    /** A half message of {@code realTopic} stored. */
    public void halfStored(String realTopic) {
        add(realTopic, 1);
    }

    /** A half message of {@code realTopic} committed or rolled back. */
    public void decided(String realTopic) {
        add(realTopic, -1);
    }

    /** A half message of {@code realTopic} given up after its last check (moved to TRANS_CHECK_MAX_TIME_TOPIC). */
    public void givenUp(String realTopic) {
        add(realTopic, -1);
    }

    private synchronized void add(String realTopic, long delta) {
        if (realTopic == null) {
            return;
        }
        long now = clock.getAsLong();
        Metric m = counts.computeIfAbsent(realTopic, t -> new Metric());
        m.count = Math.max(0, m.count + delta);
        m.timeStamp = now;
        counter++;
        versionTimestamp = now;
    }

    /** Pending half messages of {@code realTopic}. */
    public synchronized long pending(String realTopic) {
        Metric m = counts.get(realTopic);
        return m == null ? 0 : m.count;
    }

    /** Pending half messages by real topic. */
    public synchronized Map<String, Long> pendingByTopic() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((topic, m) -> out.put(topic, m.count));
        return out;
    }

    /** The file's content now. */
    synchronized ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode version = root.putObject("dataVersion");
        version.put("counter", counter);
        version.put("stateVersion", stateVersion);
        version.put("timestamp", versionTimestamp);
        ObjectNode table = root.putObject("transactionCount");
        new TreeMap<>(counts).forEach((topic, m) -> {
            ObjectNode entry = table.putObject(topic);
            entry.put("count", m.count);
            entry.put("timeStamp", m.timeStamp);
        });
        return root;
    }

    /** Writes the file atomically. */
    public void persist() throws IOException {
        file.store(toJson());
    }

    public Path path() {
        return file.path();
    }
}
