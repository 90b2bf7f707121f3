package io.basalt.broker.protocol;

import java.util.Map;
import java.util.TreeMap;

/**
 * RocketMQ's {@code TopicConfig}: a topic's queue counts, permission ({@code perm}: 2 write, 4 read,
 * 1 inherit) and flags, as kept in {@code config/topics.json} and sent in registrations.
 */
public record TopicConfig(String topicName, int readQueueNums, int writeQueueNums, int perm, String topicFilterType,
                          int topicSysFlag, boolean order, Map<String, String> attributes) {

    /** RocketMQ's {@code PermName.PERM_READ | PermName.PERM_WRITE}. */
    public static final int PERM_READ_WRITE = 6;
    /** RocketMQ's {@code TopicFilterType.SINGLE_TAG}, the default. */
    public static final String SINGLE_TAG = "SINGLE_TAG";
    /** RocketMQ's {@code TopicConfig.defaultReadQueueNums}/{@code defaultWriteQueueNums}. */
    public static final int DEFAULT_QUEUE_NUMS = 16;

    public TopicConfig {
        attributes = Map.copyOf(attributes);
    }

    /** A read-write, single-tag, unordered topic with no attributes. */
    public static TopicConfig of(String topicName, int readQueueNums, int writeQueueNums) {
        return new TopicConfig(topicName, readQueueNums, writeQueueNums, PERM_READ_WRITE, SINGLE_TAG, 0, false, Map.of());
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("attributes", new TreeMap<>(attributes));
        json.put("order", order);
        json.put("perm", perm);
        json.put("readQueueNums", readQueueNums);
        json.put("topicFilterType", topicFilterType);
        json.put("topicName", topicName);
        json.put("topicSysFlag", topicSysFlag);
        json.put("writeQueueNums", writeQueueNums);
        return json;
    }

    public static TopicConfig fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "TopicConfig");
        return new TopicConfig(json.string("topicName", null),
            json.intValue("readQueueNums", DEFAULT_QUEUE_NUMS), json.intValue("writeQueueNums", DEFAULT_QUEUE_NUMS),
            json.intValue("perm", PERM_READ_WRITE), json.string("topicFilterType", SINGLE_TAG),
            json.intValue("topicSysFlag", 0), json.bool("order", false),
            json.map("attributes", JsonObject::asString, JsonObject::asString));
    }

    /**
     * RocketMQ's space-separated form ({@code TopicConfig.encode()}), used inside a compressed
     * registration: {@code name read write perm filterType {attributes}}.
     */
    String encodeCompact() {
        return topicName + ' ' + readQueueNums + ' ' + writeQueueNums + ' ' + perm + ' ' + topicFilterType + ' '
            + Json.write(new TreeMap<>(attributes));
    }
}
