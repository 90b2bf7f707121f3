package io.basalt.broker.pop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.basalt.broker.protocol.Json;

/**
 * The revive topic's records besides the checkpoint: {@code ack} ({@code AckMsg}) and {@code bAck}
 * ({@code BatchAckMsg}) in RocketMQ 5.2.0's JSON, the tags that tell them apart, and the key that matches them to
 * their checkpoint. Stateless.
 */
public final class PopRecords {
    public static final String CK_TAG = "ck";
    public static final String ACK_TAG = "ack";
    public static final String BATCH_ACK_TAG = "bAck";
    /** RocketMQ's PopAckConstants.ackTimeInterval: a CK is due this long before its ACKs. */
    public static final long ACK_TIME_INTERVAL = 1000;

    private PopRecords() {
    }

    /** One acknowledged offset of a checkpoint's messages. */
    public record Ack(long ackOffset, long startOffset, String group, String topic, int queueId, long popTime,
                      String brokerName) {
        public String matchKey() {
            return PopRecords.matchKey(topic, group, queueId, startOffset, popTime);
        }

        /** topic@queueId@ackOffset@group@popTime@brokerName@ack. */
        public String uniqKey() {
            return topic + "@" + queueId + "@" + ackOffset + "@" + group + "@" + popTime + "@" + brokerName + "@ack";
        }

        public String toJson() {
            Map<String, Object> m = new TreeMap<>();
            m.put("ao", ackOffset);
            m.put("bn", brokerName);
            m.put("c", group);
            m.put("pt", popTime);
            m.put("q", queueId);
            m.put("so", startOffset);
            m.put("t", topic);
            return Json.write(m);
        }

        public static Ack fromJson(byte[] body) {
            Map<?, ?> m = object(new String(body, StandardCharsets.UTF_8));
            return new Ack(longField(m, "ao", 0), longField(m, "so", 0), stringField(m, "c"), stringField(m, "t"),
                (int) longField(m, "q", 0), longField(m, "pt", 0), stringField(m, "bn"));
        }
    }

    /** Several acknowledged offsets of one checkpoint. */
    public record BatchAck(List<Long> ackOffsets, long startOffset, String group, String topic, int queueId,
                           long popTime) {
        public BatchAck {
            ackOffsets = List.copyOf(ackOffsets);
        }

        public String matchKey() {
            return PopRecords.matchKey(topic, group, queueId, startOffset, popTime);
        }

        /** topic@queueId@[o1, o2]@group@popTime@bAck. */
        public String uniqKey() {
            return topic + "@" + queueId + "@" + ackOffsets + "@" + group + "@" + popTime + "@bAck";
        }

        public String toJson() {
            Map<String, Object> m = new TreeMap<>();
            m.put("ao", 0);
            m.put("aol", ackOffsets);
            m.put("c", group);
            m.put("pt", popTime);
            m.put("q", queueId);
            m.put("so", startOffset);
            m.put("t", topic);
            return Json.write(m);
        }

        public static BatchAck fromJson(byte[] body) {
            Map<?, ?> m = object(new String(body, StandardCharsets.UTF_8));
            List<Long> offsets = new ArrayList<>();
            if (m.get("aol") instanceof List<?> list) {
                for (Object o : list) {
                    offsets.add(((Number) o).longValue());
                }
            }
            return new BatchAck(offsets, longField(m, "so", 0), stringField(m, "c"), stringField(m, "t"),
                (int) longField(m, "q", 0), longField(m, "pt", 0));
        }
    }

    /** RocketMQ's match key of a CK and its ACKs (string concatenation, in this order). */
    static String matchKey(String topic, String group, int queueId, long startOffset, long popTime) {
        return topic + group + queueId + startOffset + popTime;
    }

    static Map<?, ?> object(String json) {
        Object tree = Json.parse(json);
        if (tree instanceof Map<?, ?> m) {
            return m;
        }
        throw new IllegalArgumentException("not a JSON object: " + json);
    }

    static long longField(Map<?, ?> m, String name, long fallback) {
        Object v = m.get(name);
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s && !s.isEmpty()) {
            return Long.parseLong(s);
        }
        return fallback;
    }

    static String stringField(Map<?, ?> m, String name) {
        Object v = m.get(name);
        return v == null ? null : v.toString();
    }
}
