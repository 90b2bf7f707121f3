package io.basalt.broker.offset;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RocketMQ 5.x's server-side offset reset table ({@code useServerSideResetOffset}): per (topic, group, queue) the
 * offset an operator reset the group to, not yet delivered to a consumer. The next pull of the queue takes the
 * entry (its answer is PULL_OFFSET_MOVED to the target) and, until then, the group's offset commits for the
 * queue are ignored, so that a running consumer cannot commit its old position over the reset.
 *
 * <p>RocketMQ keeps this table in memory only: after a restart a running consumer commits its old position over
 * the reset. Basalt writes it to {@code config/consumerOffsetReset.json} (a file of its own, so consumerOffset.json
 * stays RocketMQ's) on every change, before the change is acted on, so a reset survives a restart or a crash until
 * a pull delivered it. Changes are rare (an admin request, then one pull per reset queue). Thread-safe.
 */
public final class PendingOffsetResets {
    private static final Logger log = LoggerFactory.getLogger(PendingOffsetResets.class);
    static final String FILE_NAME = "consumerOffsetReset.json";
    private static final String SEPARATOR = "@";

    /** {@code topic@group} → queueId → target offset. Guarded by this. */
    private final Map<String, Map<Integer, Long>> table = new TreeMap<>();
    /** Null: kept in memory only. */
    private final JsonConfigFile file;

    private PendingOffsetResets(JsonConfigFile file) {
        this.file = file;
    }

    /** A table kept in memory only. */
    public static PendingOffsetResets inMemory() {
        return new PendingOffsetResets(null);
    }

    /** @throws IOException when the file and its backup are both unreadable */
    public static PendingOffsetResets open(Path configDir) throws IOException {
        PendingOffsetResets resets = new PendingOffsetResets(new JsonConfigFile(configDir.resolve(FILE_NAME),
            ConsumerOffsetManager::checkOffsets));
        Optional<JsonNode> content = resets.file.load();
        content.ifPresent(json -> json.path("offsetTable").fields().forEachRemaining(pair -> {
            Map<Integer, Long> queues = new TreeMap<>();
            pair.getValue().fields().forEachRemaining(q -> queues.put(Integer.parseInt(q.getKey()), q.getValue().longValue()));
            resets.table.put(pair.getKey(), queues);
        }));
        if (!resets.table.isEmpty()) {
            log.info("{} offset resets not yet delivered to a consumer: {}", resets.table.values().stream()
                .mapToInt(Map::size).sum(), resets.table);
        }
        return resets;
    }

    private static String key(String topic, String group) {
        return topic + SEPARATOR + group;
    }

    /**
     * Records the reset of one queue, replacing a pending one, and writes the table.
     *
     * @throws IOException when the table could not be written (the reset is then not recorded)
     */
    public synchronized void assign(String topic, String group, int queueId, long offset) throws IOException {
        Map<Integer, Long> queues = table.computeIfAbsent(key(topic, group), k -> new TreeMap<>());
        Long previous = queues.put(queueId, offset);
        try {
            persist();
        } catch (IOException e) {
            if (previous == null) {
                queues.remove(queueId);
                if (queues.isEmpty()) {
                    table.remove(key(topic, group));
                }
            } else {
                queues.put(queueId, previous);
            }
            throw e;
        }
    }

    public synchronized boolean isPending(String topic, String group, int queueId) {
        Map<Integer, Long> queues = table.get(key(topic, group));
        return queues != null && queues.containsKey(queueId);
    }

    /** The pending target of the queue, removed from the table (RocketMQ's queryThenEraseResetOffset); null if none. */
    public synchronized Long take(String topic, String group, int queueId) {
        Map<Integer, Long> queues = table.get(key(topic, group));
        Long offset = queues == null ? null : queues.remove(queueId);
        if (offset != null) {
            if (queues.isEmpty()) {
                table.remove(key(topic, group));
            }
            persistOrLog();
        }
        return offset;
    }

    /** Forgets the group's resets (the group was deleted). */
    public synchronized void removeGroup(String group) {
        if (table.keySet().removeIf(k -> k.substring(k.indexOf(SEPARATOR) + 1).equals(group))) {
            persistOrLog();
        }
    }

    /** Forgets the topic's resets (the topic was deleted). */
    public synchronized void removeTopic(String topic) {
        if (table.keySet().removeIf(k -> k.startsWith(topic + SEPARATOR))) {
            persistOrLog();
        }
    }

    /** Every pending reset, {@code topic@group} → queueId → offset (a copy). */
    public synchronized Map<String, Map<Integer, Long>> snapshot() {
        Map<String, Map<Integer, Long>> copy = new TreeMap<>();
        table.forEach((k, queues) -> copy.put(k, new TreeMap<>(queues)));
        return copy;
    }

    private void persistOrLog() {
        try {
            persist();
        } catch (IOException e) {
            // the table in memory is right; the file catches up with the next change
            log.error("writing the pending offset resets failed: {}", e.toString());
        }
    }

    private void persist() throws IOException {
        if (file == null) {
            return;
        }
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode offsetTable = root.putObject("offsetTable");
        table.forEach((k, queues) -> {
            ObjectNode q = offsetTable.putObject(k);
            queues.forEach((id, offset) -> q.put(Integer.toString(id), offset));
        });
        file.store(root);
    }
}
