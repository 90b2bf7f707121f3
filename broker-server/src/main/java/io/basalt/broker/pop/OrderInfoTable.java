package io.basalt.broker.pop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;

/**
 * The order-POP state of every queue (RocketMQ's {@code ConsumerOrderInfoManager}): per {@code topic@group} and
 * queue id, the last batch an order POP handed out ({@link OrderBatch}). An order POP asks {@link #blocked} before
 * reading a queue and {@link #recordBatch} after; ACK asks {@link #ack} for the offset to commit;
 * CHANGE_MESSAGE_INVISIBLETIME calls {@link #changeInvisible}.
 *
 * <p>Where Basalt differs from RocketMQ 5.2.0: a POP that carries the attempt id of the queue's last batch while
 * offsets of it are still un-acked and invisible (a client retrying a receive whose answer it lost) gets {@link Replay}:
 * the same offsets with the same popTime, and their delivery counts are not raised — RocketMQ lets it through only
 * when it also wins the queue lock, and otherwise answers it empty, leaving the queue blocked until the batch's
 * invisible time ends. A blocked queue says until when and by which offsets ({@link Blocked#reason()}). An ACK or
 * change for an offset outside the batch is refused ({@link NotInBatch}, MESSAGE_ILLEGAL) and one whose popTime is
 * not the batch's is ignored ({@link Stale}), as RocketMQ does.
 *
 * <p>Ordering scope: a block holds the whole queue (every message group hashed to it waits), and order holds per
 * queue for one orderly group: messages that a producer spread over several queues (a batch send with a group is
 * not pinned to one queue) have no order between queues.
 *
 * <p>Persistence: {@link #persist(long)} writes {@code config/consumerOrderInfo.json} in RocketMQ's format
 * ({@code {"table":{"T@cg":{"1":{"a":…,"cm":…,"i":…,"l":…,"o":[first, rest relative],"oc":{…},"ot":{…},
 * "popTime":…}}}}}) atomically, after dropping queues not consumed for 24 h. The caller schedules it (RocketMQ
 * persists with the consumer offsets) and calls it at shutdown. Callers that compare an ACK with the committed
 * offset (RocketMQ ignores ACKs below it) do so themselves. Thread-safe: every operation holds the table's lock.
 */
public final class OrderInfoTable {
    public static final String FILE_NAME = "consumerOrderInfo.json";
    /** RocketMQ's CLEAN_SPAN_FROM_LAST: a queue whose order state was not touched for this long is forgotten. */
    public static final long IDLE_DROP_MS = 24L * 60 * 60 * 1000;
    private static final String SEPARATOR = "@";

    /** What an order POP may do with a queue. */
    public sealed interface QueueState permits Free, Blocked, Replay {
    }

    /** No un-acked, invisible offset of a previous batch: pop the queue from its committed offset. */
    public record Free() implements QueueState {
    }

    /** Offsets of the last batch are un-acked and invisible until {@code visibleAt}: skip the queue. */
    public record Blocked(long visibleAt, String attemptId, List<Long> pendingOffsets) implements QueueState {
        public String reason() {
            return "blocked until " + visibleAt + " by the un-acked offsets " + pendingOffsets + " of attempt "
                + attemptId;
        }
    }

    /**
     * The POP retries the attempt of the last batch: hand out these offsets again, with this popTime and invisible
     * time (the same receipt handles) and these delivery counts; do not {@link #recordBatch} again.
     */
    public record Replay(long popTime, long invisibleTime, List<Long> offsets, Map<Long, Integer> consumedCounts)
        implements QueueState {
    }

    /** What an order ACK means for the group's offset. */
    public sealed interface AckOutcome permits Commit, Stale, NotInBatch {
    }

    /** Commit {@code nextOffset}: the first un-acked offset of the batch, or its last + 1 once all are acked. */
    public record Commit(long nextOffset) implements AckOutcome {
    }

    /** The ACK or change belongs to an earlier batch (another popTime) or to no recorded batch: ignore it. */
    public record Stale(String reason) implements AckOutcome, ChangeOutcome {
    }

    /** The offset is not part of the queue's batch of that popTime: MESSAGE_ILLEGAL. */
    public record NotInBatch(String reason) implements AckOutcome, ChangeOutcome {
    }

    /** What an order CHANGE_MESSAGE_INVISIBLETIME did. */
    public sealed interface ChangeOutcome permits Changed, Stale, NotInBatch {
    }

    /**
     * The offset becomes visible at {@code popTime + invisibleTime}; RocketMQ answers with the batch's (old) popTime
     * and this invisible time, so the receipt handle still matches the batch.
     */
    public record Changed(long popTime, long invisibleTime) implements ChangeOutcome {
    }

    /** topic@group → queue id → last batch. Guarded by this. */
    private final Map<String, Map<Integer, OrderBatch>> table = new TreeMap<>();
    /** Null: kept in memory only. */
    private final JsonConfigFile file;

    private OrderInfoTable(JsonConfigFile file) {
        this.file = file;
    }

    public static OrderInfoTable inMemory() {
        return new OrderInfoTable(null);
    }

    /**
     * The table of {@code configDir/consumerOrderInfo.json} (RocketMQ's, or its backup when it is corrupt), empty
     * when there is none.
     *
     * @throws IOException when neither the file nor its backup can be read
     */
    public static OrderInfoTable open(Path configDir) throws IOException {
        OrderInfoTable orders = new OrderInfoTable(new JsonConfigFile(configDir.resolve(FILE_NAME)));
        Optional<JsonNode> content = orders.file.load();
        if (content.isPresent()) {
            try {
                content.get().path("table").fields().forEachRemaining(topicGroup -> {
                    Map<Integer, OrderBatch> queues = new TreeMap<>();
                    topicGroup.getValue().fields().forEachRemaining(queue ->
                        queues.put(Integer.parseInt(queue.getKey()), batchOf(queue.getValue())));
                    orders.table.put(topicGroup.getKey(), queues);
                });
            } catch (RuntimeException e) {
                throw new IOException(orders.file.path() + ": not RocketMQ's consumer order info: " + e.getMessage(), e);
            }
        }
        return orders;
    }

    private static String key(String topic, String group) {
        return topic + SEPARATOR + group;
    }

    private OrderBatch batch(String topic, String group, int queueId) {
        Map<Integer, OrderBatch> queues = table.get(key(topic, group));
        return queues == null ? null : queues.get(queueId);
    }

    /**
     * Whether an order POP with {@code attemptId} may read the queue now: {@link Blocked} while an un-acked offset
     * of the last batch is invisible, else {@link Free}; but the same attempt as the last batch gets {@link Replay}
     * while it would block others (its handles are still valid). Once the batch is visible again the same attempt
     * is {@link Free}: it pops afresh, with new handles, and {@link #recordBatch} does not count it as a new
     * delivery.
     */
    public synchronized QueueState blocked(String topic, String group, int queueId, String attemptId, long now) {
        OrderBatch batch = batch(topic, group, queueId);
        if (batch == null) {
            return new Free();
        }
        List<Long> pending = batch.unacked();
        if (pending.isEmpty()) {
            return new Free();
        }
        long blockedUntil = Long.MIN_VALUE;
        for (int i = 0; i < batch.offsets.size(); i++) {
            if (!batch.acked(i) && now < batch.visibleAt(i)) {
                blockedUntil = Math.max(blockedUntil, batch.visibleAt(i));
            }
        }
        if (blockedUntil == Long.MIN_VALUE) {
            return new Free();
        }
        if (attemptId != null && attemptId.equals(batch.attemptId)) {
            Map<Long, Integer> counts = new TreeMap<>(batch.countsOfEveryOffset());
            counts.keySet().retainAll(pending);
            return new Replay(batch.popTime, batch.invisibleTime, pending, Collections.unmodifiableMap(counts));
        }
        return new Blocked(blockedUntil, batch.attemptId, pending);
    }

    /**
     * Records the batch an order POP hands out from the queue and returns, per offset, how often it was delivered
     * before (the response's {@code orderCountInfo}, the client's {@code reconsumeTimes}): an offset of the previous
     * batch counts one more delivery, unless the POP is the same attempt as that batch.
     *
     * @param offsets the queue offsets handed out, ascending, 1 to {@value OrderBatch#MAX_OFFSETS}
     */
    public synchronized Map<Long, Integer> recordBatch(String topic, String group, int queueId, String attemptId,
                                                       long popTime, long invisibleTime, List<Long> offsets, long now) {
        if (offsets.isEmpty() || offsets.size() > OrderBatch.MAX_OFFSETS) {
            throw new IllegalArgumentException("an order batch holds 1 to " + OrderBatch.MAX_OFFSETS + " offsets, not "
                + offsets.size());
        }
        for (int i = 1; i < offsets.size(); i++) {
            if (offsets.get(i) <= offsets.get(i - 1)) {
                throw new IllegalArgumentException("an order batch's offsets ascend: " + offsets);
            }
        }
        OrderBatch previous = batch(topic, group, queueId);
        Map<Long, Integer> counts = new TreeMap<>();
        if (previous != null && attemptId != null && attemptId.equals(previous.attemptId)) {
            counts.putAll(previous.consumedCounts);
        } else if (previous != null) {
            for (long offset : offsets) {
                if (previous.offsets.contains(offset)) {
                    counts.put(offset, previous.consumedCounts.getOrDefault(offset, 0) + 1);
                }
            }
        }
        counts.keySet().retainAll(offsets);
        OrderBatch batch = new OrderBatch(attemptId, popTime, invisibleTime, offsets, 0, Map.of(), counts, now);
        table.computeIfAbsent(key(topic, group), k -> new TreeMap<>()).put(queueId, batch);
        return batch.countsOfEveryOffset();
    }

    /** An order ACK of {@code offset} from the batch popped at {@code popTime}. */
    public synchronized AckOutcome ack(String topic, String group, int queueId, long offset, long popTime, long now) {
        OrderBatch batch = batch(topic, group, queueId);
        if (batch == null) {
            return new Stale("no order batch is recorded for queue " + queueId + " of " + key(topic, group));
        }
        if (batch.popTime != popTime) {
            return new Stale("popTime " + popTime + " is not the one of the queue's last batch (" + batch.popTime + ")");
        }
        int index = batch.indexOf(offset);
        if (index < 0) {
            return new NotInBatch("offset " + offset + " is not in the order batch " + batch.offsets + " of queue "
                + queueId + " of " + key(topic, group));
        }
        batch.ackedBits |= 1L << index;
        batch.lastConsumeTimestamp = now;
        return new Commit(batch.nextOffset());
    }

    /** An order CHANGE_MESSAGE_INVISIBLETIME: {@code offset} becomes visible at {@code now + invisibleTime}. */
    public synchronized ChangeOutcome changeInvisible(String topic, String group, int queueId, long offset,
                                                      long popTime, long invisibleTime, long now) {
        OrderBatch batch = batch(topic, group, queueId);
        if (batch == null) {
            return new Stale("no order batch is recorded for queue " + queueId + " of " + key(topic, group));
        }
        if (batch.popTime != popTime) {
            return new Stale("popTime " + popTime + " is not the one of the queue's last batch (" + batch.popTime + ")");
        }
        if (batch.indexOf(offset) < 0) {
            return new NotInBatch("offset " + offset + " is not in the order batch " + batch.offsets + " of queue "
                + queueId + " of " + key(topic, group));
        }
        long visibleAt = now + invisibleTime;
        batch.nextVisible.put(offset, visibleAt);
        batch.lastConsumeTimestamp = now;
        return new Changed(batch.popTime, visibleAt - batch.popTime);
    }

    /** Forgets the queue's batch (an offset reset of the queue: RocketMQ's clearBlock). */
    public synchronized void clearQueue(String topic, String group, int queueId) {
        Map<Integer, OrderBatch> queues = table.get(key(topic, group));
        if (queues != null) {
            queues.remove(queueId);
            if (queues.isEmpty()) {
                table.remove(key(topic, group));
            }
        }
    }

    /** Drops queues not consumed for {@value #IDLE_DROP_MS} ms; returns how many. */
    public synchronized int dropIdle(long now) {
        int dropped = 0;
        for (Iterator<Map<Integer, OrderBatch>> groups = table.values().iterator(); groups.hasNext(); ) {
            Map<Integer, OrderBatch> queues = groups.next();
            int before = queues.size();
            queues.values().removeIf(batch -> now - batch.lastConsumeTimestamp > IDLE_DROP_MS);
            dropped += before - queues.size();
            if (queues.isEmpty()) {
                groups.remove();
            }
        }
        return dropped;
    }

    /** Drops idle queues and writes the table atomically (nothing for an in-memory table). */
    public synchronized void persist(long now) throws IOException {
        dropIdle(now);
        if (file != null) {
            file.store(toJson());
        }
    }

    /** The table in RocketMQ's JSON layout. */
    synchronized ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode tableNode = root.putObject("table");
        table.forEach((topicGroup, queues) -> {
            ObjectNode queuesNode = tableNode.putObject(topicGroup);
            queues.forEach((queueId, batch) -> queuesNode.set(Integer.toString(queueId), toJson(batch)));
        });
        return root;
    }

    private static ObjectNode toJson(OrderBatch batch) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        if (batch.attemptId != null) {
            node.put("a", batch.attemptId);
        }
        node.put("cm", batch.ackedBits);
        node.put("i", batch.invisibleTime);
        node.put("l", batch.lastConsumeTimestamp);
        ArrayNode offsets = node.putArray("o");
        long first = batch.offsets.get(0);
        offsets.add(first);
        for (int i = 1; i < batch.offsets.size(); i++) {
            offsets.add(batch.offsets.get(i) - first);
        }
        if (!batch.consumedCounts.isEmpty()) {
            ObjectNode counts = node.putObject("oc");
            batch.consumedCounts.forEach((offset, count) -> counts.put(Long.toString(offset), count));
        }
        if (!batch.nextVisible.isEmpty()) {
            ObjectNode visible = node.putObject("ot");
            batch.nextVisible.forEach((offset, at) -> visible.put(Long.toString(offset), at));
        }
        node.put("popTime", batch.popTime);
        return node;
    }

    private static OrderBatch batchOf(JsonNode node) {
        List<Long> offsets = new ArrayList<>();
        JsonNode o = node.path("o");
        for (int i = 0; i < o.size(); i++) {
            offsets.add(i == 0 ? o.get(0).asLong() : o.get(0).asLong() + o.get(i).asLong());
        }
        if (offsets.isEmpty()) {
            throw new IllegalArgumentException("an order batch without offsets (\"o\")");
        }
        Map<Long, Long> nextVisible = new TreeMap<>();
        node.path("ot").fields().forEachRemaining(e -> nextVisible.put(Long.parseLong(e.getKey()), e.getValue().asLong()));
        Map<Long, Integer> counts = new TreeMap<>();
        node.path("oc").fields().forEachRemaining(e -> counts.put(Long.parseLong(e.getKey()), e.getValue().asInt()));
        String attemptId = node.hasNonNull("a") ? node.get("a").asText() : null;
        return new OrderBatch(attemptId, node.path("popTime").asLong(), node.path("i").asLong(), offsets,
            node.path("cm").asLong(), nextVisible, counts, node.path("l").asLong());
    }
}
