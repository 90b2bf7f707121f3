package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code DataVersion}: a version stamp of a table (topics, mappings) for change detection. */
public record DataVersion(long stateVersion, long timestamp, long counter) {

    /** RocketMQ's {@code DataVersion.nextVersion}: one more change, made at {@code nowMs}. */
    public DataVersion next(long nowMs) {
        return new DataVersion(stateVersion, nowMs, counter + 1);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("counter", counter);
        json.put("stateVersion", stateVersion);
        json.put("timestamp", timestamp);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    public static DataVersion fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "DataVersion");
        return new DataVersion(json.longValue("stateVersion", 0L), json.longValue("timestamp", 0L), json.longValue("counter", 0L));
    }
}
