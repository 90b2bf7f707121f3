package io.basalt.broker.protocol;

import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.json.JsonException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * RocketMQ's {@code TopicConfigSerializeWrapper}: every topic config and the table's version; the
 * content of {@code config/topics.json} and the GET_ALL_TOPIC_CONFIG response body.
 */
public record TopicConfigSerializeWrapper(Map<String, TopicConfig> topicConfigTable, DataVersion dataVersion) {

    public TopicConfigSerializeWrapper {
        topicConfigTable = Collections.unmodifiableMap(new LinkedHashMap<>(topicConfigTable));
    }

    public Map<String, Object> toJson() {
        Map<String, Object> topics = new LinkedHashMap<>();
        topicConfigTable.forEach((name, config) -> topics.put(name, toJson(config)));
        Map<String, Object> json = JsonObject.fields();
        json.put("dataVersion", dataVersion.toJson());
        json.put("topicConfigTable", topics);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    /** RocketMQ's {@code TopicConfig} properties (also the GET_TOPIC_CONFIG body). */
    public static Map<String, Object> toJson(TopicConfig config) {
        Map<String, Object> json = JsonObject.fields();
        json.put("attributes", new TreeMap<>(config.attributes()));
        json.put("order", config.order());
        json.put("perm", config.perm());
        json.put("readQueueNums", config.readQueueNums());
        json.put("topicFilterType", config.topicFilterType());
        json.put("topicName", config.topicName());
        json.put("topicSysFlag", config.topicSysFlag());
        json.put("writeQueueNums", config.writeQueueNums());
        return json;
    }

    /** RocketMQ's defaults for missing properties: 16 queues each way, read-write, single tag. */
    static TopicConfig topicConfigFromJson(String name, Object tree) {
        JsonObject json = JsonObject.of(tree, "TopicConfig");
        return new TopicConfig(json.string("topicName", name), json.intValue("readQueueNums", 16),
            json.intValue("writeQueueNums", 16), json.intValue("perm", 6), json.string("topicFilterType", "SINGLE_TAG"),
            json.intValue("topicSysFlag", 0), json.bool("order", false),
            json.map("attributes", JsonObject::asString, JsonObject::asString));
    }

    public static TopicConfigSerializeWrapper fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "TopicConfigSerializeWrapper");
        JsonObject version = json.object("dataVersion");
        Map<String, TopicConfig> table = new LinkedHashMap<>();
        JsonObject.asMap(json.raw("topicConfigTable"), JsonObject::asString, value -> value)
            .forEach((name, value) -> table.put(name, topicConfigFromJson(name, value)));
        return new TopicConfigSerializeWrapper(table,
            version == null ? new DataVersion(0L, 0L, 0L) : DataVersion.fromJson(json.raw("dataVersion")));
    }

    /** @throws JsonException if the body is not a topic table */
    public static TopicConfigSerializeWrapper decode(byte[] body) {
        return fromJson(Json.parse(body));
    }
}
