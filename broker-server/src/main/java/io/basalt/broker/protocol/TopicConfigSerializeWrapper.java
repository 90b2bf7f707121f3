package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RocketMQ's {@code TopicConfigSerializeWrapper}: every topic config and the table's version; the
 * content of {@code config/topics.json} and the GET_ALL_TOPIC_CONFIG response body.
 */
public record TopicConfigSerializeWrapper(Map<String, TopicConfig> topicConfigTable, DataVersion dataVersion) {

    public TopicConfigSerializeWrapper {
        topicConfigTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(topicConfigTable));
    }

    public Map<String, Object> toJson() {
        Map<String, Object> topics = new LinkedHashMap<>();
        topicConfigTable.forEach((name, config) -> topics.put(name, config.toJson()));
        Map<String, Object> json = JsonObject.fields();
        json.put("dataVersion", dataVersion.toJson());
        json.put("topicConfigTable", topics);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    public static TopicConfigSerializeWrapper fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "TopicConfigSerializeWrapper");
        JsonObject version = json.object("dataVersion");
        return new TopicConfigSerializeWrapper(json.map("topicConfigTable", JsonObject::asString, TopicConfig::fromJson),
            version == null ? new DataVersion(0L, 0L, 0L) : DataVersion.fromJson(json.raw("dataVersion")));
    }

    /** @throws JsonException if the body is not a topic table */
    public static TopicConfigSerializeWrapper decode(byte[] body) {
        return fromJson(Json.parse(body));
    }
}
