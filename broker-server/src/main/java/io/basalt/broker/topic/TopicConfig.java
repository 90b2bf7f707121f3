package io.basalt.broker.topic;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One topic's configuration, RocketMQ's {@code TopicConfig}: the element of {@code topics.json} and of
 * GET_ALL_TOPIC_CONFIG / REGISTER_BROKER bodies. Immutable.
 *
 * @param perm           {@link Perm} bits (READ 4, WRITE 2, INHERIT 1)
 * @param topicSysFlag   RocketMQ's TopicSysFlag bits (unit flags)
 * @param attributes     5.x topic attributes (e.g. {@code message.type}); empty normally
 */
public record TopicConfig(String topicName, int readQueueNums, int writeQueueNums, int perm, String topicFilterType,
                          int topicSysFlag, boolean order, Map<String, String> attributes) {

    public TopicConfig {
        attributes = Map.copyOf(attributes);
    }

    public static TopicConfig of(String topicName, int queueNums, int perm) {
        return new TopicConfig(topicName, queueNums, queueNums, perm, "SINGLE_TAG", 0, false, Map.of());
    }

    /** This topic with another read queue count. */
    public TopicConfig withReadQueueNums(int newReadQueueNums) {
        return new TopicConfig(topicName, newReadQueueNums, writeQueueNums, perm, topicFilterType, topicSysFlag, order,
            attributes);
    }

    public TopicConfig withPerm(int newPerm) {
        return new TopicConfig(topicName, readQueueNums, writeQueueNums, newPerm, topicFilterType, topicSysFlag, order,
            attributes);
    }

    public boolean isReadable() {
        return (perm & Perm.READ) != 0;
    }

    public boolean isWritable() {
        return (perm & Perm.WRITE) != 0;
    }

    public boolean isInheritable() {
        return (perm & Perm.INHERIT) != 0;
    }

    /** The larger of the two queue counts: queue ids below it exist. */
    public int queueNums() {
        return Math.max(readQueueNums, writeQueueNums);
    }

    /** RocketMQ's JSON form (fastjson field names). */
    public ObjectNode toJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        ObjectNode attrs = n.putObject("attributes");
        attributes.forEach(attrs::put);
        n.put("order", order);
        n.put("perm", perm);
        n.put("readQueueNums", readQueueNums);
        n.put("topicFilterType", topicFilterType);
        n.put("topicName", topicName);
        n.put("topicSysFlag", topicSysFlag);
        n.put("writeQueueNums", writeQueueNums);
        return n;
    }

    /** Reads RocketMQ's JSON form; missing fields take RocketMQ's defaults (16 queues, perm 6). */
    public static TopicConfig fromJson(String name, JsonNode n) {
        java.util.HashMap<String, String> attrs = new java.util.HashMap<>();
        JsonNode a = n.path("attributes");
        a.fields().forEachRemaining(e -> attrs.put(e.getKey(), e.getValue().asText()));
        String topicName = n.path("topicName").asText(name);
        return new TopicConfig(topicName, n.path("readQueueNums").asInt(16), n.path("writeQueueNums").asInt(16),
            n.path("perm").asInt(Perm.READ | Perm.WRITE), n.path("topicFilterType").asText("SINGLE_TAG"),
            n.path("topicSysFlag").asInt(0), n.path("order").asBoolean(false), attrs);
    }
}
