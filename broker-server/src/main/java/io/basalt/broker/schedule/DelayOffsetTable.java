package io.basalt.broker.schedule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;

import io.basalt.broker.protocol.DataVersion;

/**
 * RocketMQ's {@code DelayOffsetSerializeWrapper}, the content of {@code config/delayOffset.json}: per delay level
 * the next SCHEDULE_TOPIC_XXXX consume-queue offset to deliver, and the table's {@code dataVersion}. Written as
 * fastjson writes it (level keys unquoted; {@link #toPrettyJson()} for the file, {@link #toCompactJson()} for
 * GET_ALL_DELAY_OFFSET); read with quoted or unquoted keys. Only levels that were touched appear.
 *
 * <p>Thread-safe: the level deliverers update their own level, the persister and request threads read.
 */
public final class DelayOffsetTable {
    private final TreeMap<Integer, Long> offsets = new TreeMap<>();
    private final int versionStep;
    private DataVersion dataVersion;
    private long updatesSinceVersion;

    /**
     * @param versionStep {@code delayOffsetUpdateVersionStep}: the data version moves on every this many updates
     */
    public DelayOffsetTable(int versionStep, DataVersion dataVersion) {
        this.versionStep = versionStep;
        this.dataVersion = dataVersion;
    }

    /** The next offset to deliver of {@code level}, or -1 when the level was never touched. */
    public synchronized long offset(int level) {
        Long offset = offsets.get(level);
        return offset == null ? -1 : offset;
    }

    /** Sets the next offset to deliver of {@code level}; returns whether it changed. */
    public synchronized boolean update(int level, long offset, long nowMs) {
        Long previous = offsets.put(level, offset);
        if (previous != null && previous == offset) {
            return false;
        }
        if (++updatesSinceVersion >= versionStep) {
            updatesSinceVersion = 0;
            dataVersion = dataVersion.next(nowMs);
        }
        return true;
    }

    /** Replaces the content with {@code other}'s (a slave's copy of its master's table). */
    public synchronized void replaceWith(DelayOffsetTable other) {
        SortedMap<Integer, Long> copy = other.snapshot();
        DataVersion version = other.dataVersion();
        offsets.clear();
        offsets.putAll(copy);
        dataVersion = version;
    }

    public synchronized SortedMap<Integer, Long> snapshot() {
        return new TreeMap<>(offsets);
    }

    public synchronized DataVersion dataVersion() {
        return dataVersion;
    }

    public synchronized boolean isEmpty() {
        return offsets.isEmpty();
    }

    /** The GET_ALL_DELAY_OFFSET body: {@code {"dataVersion":{...},"offsetTable":{1:0,2:15}}}. */
    public String toCompactJson() {
        SortedMap<Integer, Long> table;
        DataVersion version;
        synchronized (this) {
            table = new TreeMap<>(offsets);
            version = dataVersion;
        }
        StringBuilder sb = new StringBuilder(64 + 16 * table.size());
        sb.append("{\"dataVersion\":{\"counter\":").append(version.counter())
            .append(",\"stateVersion\":").append(version.stateVersion())
            .append(",\"timestamp\":").append(version.timestamp()).append("},\"offsetTable\":{");
        appendEntries(sb, table);
        return sb.append("}}").toString();
    }

    /**
     * The file's content as fastjson's {@code PrettyFormat} writes the wrapper: one tab per level of nesting,
     * each bean field on its own line, the map of integer keys on one line with its closing brace on the next.
     */
    public String toPrettyJson() {
        SortedMap<Integer, Long> table;
        DataVersion version;
        synchronized (this) {
            table = new TreeMap<>(offsets);
            version = dataVersion;
        }
        StringBuilder sb = new StringBuilder(128 + 16 * table.size());
        sb.append("{\n\t\"dataVersion\":{\n\t\t\"counter\":").append(version.counter())
            .append(",\n\t\t\"stateVersion\":").append(version.stateVersion())
            .append(",\n\t\t\"timestamp\":").append(version.timestamp())
            .append("\n\t},\n\t\"offsetTable\":{");
        appendEntries(sb, table);
        sb.append(table.isEmpty() ? "}" : "\n\t}");
        return sb.append("\n}").toString();
    }

    private static void appendEntries(StringBuilder sb, SortedMap<Integer, Long> table) {
        boolean first = true;
        for (Map.Entry<Integer, Long> e : table.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(e.getKey()).append(':').append(e.getValue());
        }
    }

    public byte[] encodeCompact() {
        return toCompactJson().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a parsed {@code delayOffset.json} (quoted or unquoted level keys; a missing dataVersion reads as 0).
     *
     * @throws IOException naming the first entry that is not a level ≥ 1 with an offset ≥ 0
     */
    public static DelayOffsetTable fromJson(JsonNode json, int versionStep) throws IOException {
        check(json);
        JsonNode version = json.path("dataVersion");
        DelayOffsetTable table = new DelayOffsetTable(versionStep, new DataVersion(version.path("stateVersion").asLong(0),
            version.path("timestamp").asLong(0), version.path("counter").asLong(0)));
        JsonNode entries = json.path("offsetTable");
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            table.offsets.put(Integer.parseInt(e.getKey().trim()), e.getValue().asLong());
        }
        return table;
    }

    /** The content check of the file: an object whose offsetTable maps levels ≥ 1 to offsets ≥ 0. */
    static void check(JsonNode json) throws IOException {
        JsonNode entries = json.get("offsetTable");
        if (entries == null || entries.isNull()) {
            return;
        }
        if (!entries.isObject()) {
            throw new IOException("offsetTable is not an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int level;
            try {
                level = Integer.parseInt(e.getKey().trim());
            } catch (NumberFormatException ex) {
                throw new IOException("offsetTable key '" + e.getKey() + "' is not a delay level");
            }
            if (level < 1) {
                throw new IOException("offsetTable key " + level + " is not a delay level (levels start at 1)");
            }
            if (!e.getValue().isIntegralNumber() || e.getValue().asLong() < 0) {
                throw new IOException("offsetTable offset of level " + level + " is " + e.getValue()
                    + ", not an offset >= 0");
            }
        }
    }
}
