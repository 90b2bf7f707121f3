package io.basalt.broker.offset;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.protocol.DataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed consumer offsets per (group, topic, queue), persisted in
 * {@code <storePathRootDir>/config/consumerOffset.json} in RocketMQ's layout
 * {@code {"offsetTable":{"<topic>@<group>":{"<queueId>":offset}}}} (RocketMQ writes the queue ids
 * unquoted; both forms are read). Commits may come from any thread; {@link #persist()} is called by
 * one thread at a time (the periodic task, then shutdown).
 */
public final class ConsumerOffsetManager {
    private static final Logger log = LoggerFactory.getLogger(ConsumerOffsetManager.class);
    private static final String SEPARATOR = "@";

    private final ConcurrentMap<String, ConcurrentMap<Integer, Long>> offsetTable = new ConcurrentHashMap<>();
    private final JsonConfigFile file;
    /**
     * RocketMQ's {@code ConsumerOffsetManager.dataVersion}: sent with the table to slaves (GET_ALL_CONSUMER_OFFSET),
     * which take the master's. Commits do not bump it (RocketMQ's neither).
     */
    private volatile DataVersion dataVersion = new DataVersion(0, System.currentTimeMillis(), 0);
    private volatile Runnable onChange = () -> { };
    private volatile SnapshotCompanion companion = () -> () -> { };
    private final PendingOffsetResets resets;

    ConsumerOffsetManager(JsonConfigFile file, PendingOffsetResets resets) {
        this.file = file;
        this.resets = resets;
    }

    /** @throws IOException when the file and its backup are both corrupt */
    public static ConsumerOffsetManager open(Path configDir) throws IOException {
        ConsumerOffsetManager m = new ConsumerOffsetManager(new JsonConfigFile(configDir.resolve("consumerOffset.json"),
            ConsumerOffsetManager::checkOffsets), PendingOffsetResets.open(configDir));
        Optional<JsonNode> content = m.file.load();
        if (content.isPresent()) {
            content.get().path("offsetTable").fields().forEachRemaining(e -> {
                ConcurrentMap<Integer, Long> queues = new ConcurrentHashMap<>();
                e.getValue().fields().forEachRemaining(q -> queues.put(Integer.parseInt(q.getKey()), q.getValue().longValue()));
                m.offsetTable.put(e.getKey(), queues);
            });
            log.info("loaded offsets of {} topic@group pairs from {}", m.offsetTable.size(), m.file.path());
        }
        return m;
    }

    /**
     * Every committed offset must be a whole number ≥ 0 under a queue id ≥ 0: read as it is, a negative or
     * non-numeric value becomes offset 0 (or worse) and the group consumes its whole history again.
     */
    static void checkOffsets(JsonNode content) throws IOException {
        JsonNode table = content.path("offsetTable");
        if (table.isMissingNode()) {
            return;
        }
        if (!table.isObject()) {
            throw new IOException("offsetTable is not an object");
        }
        for (var pairs = table.fields(); pairs.hasNext(); ) {
            var pair = pairs.next();
            if (!pair.getValue().isObject()) {
                throw new IOException("offsets of " + pair.getKey() + " are not an object of queue id to offset");
            }
            for (var queues = pair.getValue().fields(); queues.hasNext(); ) {
                var queue = queues.next();
                int queueId;
                try {
                    queueId = Integer.parseInt(queue.getKey());
                } catch (NumberFormatException e) {
                    queueId = -1;
                }
                if (queueId < 0) {
                    throw new IOException("queue id '" + queue.getKey() + "' of " + pair.getKey() + " is not a queue id");
                }
                JsonNode offset = queue.getValue();
                if (!offset.isIntegralNumber() || !offset.canConvertToLong() || offset.longValue() < 0) {
                    throw new IOException("offset of " + pair.getKey() + " queue " + queueId + " is " + offset
                        + ", not a committed offset (a whole number >= 0)");
                }
            }
        }
    }

    private static String key(String topic, String group) {
        return topic + SEPARATOR + group;
    }

    public void commitOffset(String clientHost, String group, String topic, int queueId, long offset) {
        Long previous = offsetTable.computeIfAbsent(key(topic, group), k -> new ConcurrentHashMap<>()).put(queueId, offset);
        if (previous == null || previous != offset) {
            onChange.run();
        }
    }

    /**
     * Called (on the committing thread) after a commit changed an offset; the broker hands in a
     * {@code MetadataPersister} table's {@code markDirty}, so the file follows the table within one
     * persister interval. Must not block. Set once at start.
     */
    public void onChange(Runnable listener) {
        this.onChange = listener;
    }

    /** Server-side offset resets not yet delivered to a consumer. */
    public PendingOffsetResets resets() {
        return resets;
    }

    /**
     * RocketMQ's {@code assignResetOffset}: the queue's next pull by the group moves the consumer to {@code offset},
     * and the group's committed offset becomes {@code offset} if the group has committed offsets on the topic.
     *
     * @throws IOException when the pending reset could not be recorded (nothing changed then)
     */
    public void assignResetOffset(String topic, String group, int queueId, long offset) throws IOException {
        resets.assign(topic, group, queueId, offset);
        ConcurrentMap<Integer, Long> queues = offsetTable.get(key(topic, group));
        if (queues != null) {
            Long previous = queues.put(queueId, offset);
            if (previous == null || previous != offset) {
                onChange.run();
            }
        }
    }

    /** The committed offset, or -1 when the group has none for this queue. */
    public long queryOffset(String group, String topic, int queueId) {
        Map<Integer, Long> queues = offsetTable.get(key(topic, group));
        if (queues == null) {
            return -1;
        }
        Long offset = queues.get(queueId);
        return offset == null ? -1 : offset;
    }

    /** Committed offsets of a group on a topic: queueId → offset (a copy). */
    public Map<Integer, Long> queryOffsets(String group, String topic) {
        Map<Integer, Long> queues = offsetTable.get(key(topic, group));
        return queues == null ? Map.of() : new TreeMap<>(queues);
    }

    /**
     * RocketMQ's {@code cloneOffset}: the destination group's offsets on the topic become a copy of the source
     * group's (queues the source has no offset for lose theirs). Returns the queues copied; 0, and nothing changed,
     * when the source has no offsets on the topic.
     */
    public int cloneOffsets(String srcGroup, String destGroup, String topic) {
        Map<Integer, Long> source = offsetTable.get(key(topic, srcGroup));
        if (source == null || source.isEmpty()) {
            return 0;
        }
        ConcurrentMap<Integer, Long> copy = new ConcurrentHashMap<>(source);
        offsetTable.put(key(topic, destGroup), copy);
        onChange.run();
        return copy.size();
    }

    /** Groups that committed offsets on a topic. */
    public java.util.Set<String> groupsOf(String topic) {
        java.util.Set<String> groups = new java.util.TreeSet<>();
        for (String k : offsetTable.keySet()) {
            int at = k.indexOf(SEPARATOR);
            if (at > 0 && k.substring(0, at).equals(topic)) {
                groups.add(k.substring(at + 1));
            }
        }
        return groups;
    }

    /** Topics a group committed offsets on (RocketMQ's {@code whichTopicByConsumer}). */
    public java.util.Set<String> topicsOf(String group) {
        java.util.Set<String> topics = new java.util.TreeSet<>();
        for (String k : offsetTable.keySet()) {
            // topic names cannot contain the separator, so the first one ends the topic
            int at = k.indexOf(SEPARATOR);
            if (at > 0 && k.substring(at + 1).equals(group)) {
                topics.add(k.substring(0, at));
            }
        }
        return topics;
    }

    /** Forgets every offset of a group (group deleted with cleanOffset). */
    public void removeGroup(String group) {
        // topic names cannot contain the separator, so the first one ends the topic
        offsetTable.keySet().removeIf(k -> k.substring(k.indexOf(SEPARATOR) + 1).equals(group));
        resets.removeGroup(group);
    }

    /** Forgets every offset of a topic (topic deleted). */
    public void removeTopic(String topic) {
        offsetTable.keySet().removeIf(k -> k.startsWith(topic + SEPARATOR));
        resets.removeTopic(topic);
    }

    public DataVersion dataVersion() {
        return dataVersion;
    }

    /** Every committed offset, {@code topic@group} → queueId → offset (a sorted copy). */
    public Map<String, Map<Integer, Long>> offsetTable() {
        Map<String, Map<Integer, Long>> copy = new TreeMap<>();
        offsetTable.forEach((k, queues) -> copy.put(k, new TreeMap<>(queues)));
        return copy;
    }

    /**
     * A slave takes its master's offsets (RocketMQ's {@code SlaveSynchronize.syncConsumerOffset}): each
     * {@code topic@group} of {@code table} gets the master's queue map in place of its own, keys the master does
     * not have are kept (nothing is deleted), and the version becomes the master's. The caller persists.
     */
    public void putAll(Map<String, Map<Integer, Long>> table, DataVersion version) {
        table.forEach((k, queues) -> offsetTable.put(k, new ConcurrentHashMap<>(queues)));
        dataVersion = version;
    }

    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode table = root.putObject("offsetTable");
        new TreeMap<>(offsetTable).forEach((k, queues) -> {
            ObjectNode q = table.putObject(k);
            new TreeMap<>(queues).forEach((id, offset) -> q.put(Integer.toString(id), offset));
        });
        return root;
    }

    /**
     * A file that must describe the same moment as consumerOffset.json: {@link #beforeSnapshot} runs just before the
     * table is copied, the action it returns just after consumerOffset.json was written (so after a crash the
     * companion is never newer than the offsets).
     */
    public interface SnapshotCompanion {
        AfterSnapshot beforeSnapshot();
    }

    public interface AfterSnapshot {
        void written() throws IOException;
    }

    /** Set once at start. */
    public void snapshotCompanion(SnapshotCompanion companion) {
        this.companion = companion;
    }

    /** Writes consumerOffset.json atomically, then the companion's file. */
    public synchronized void persist() throws IOException {
        AfterSnapshot after = companion.beforeSnapshot();
        file.store(toJson());
        after.written();
    }
}
