package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code TopicOffset}: one queue's min and max logical offsets and its last store time. */
public record TopicOffset(long minOffset, long maxOffset, long lastUpdateTimestamp) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("lastUpdateTimestamp", lastUpdateTimestamp);
        json.put("maxOffset", maxOffset);
        json.put("minOffset", minOffset);
        return json;
    }

    public static TopicOffset fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "TopicOffset");
        return new TopicOffset(json.longValue("minOffset", 0L), json.longValue("maxOffset", 0L),
            json.longValue("lastUpdateTimestamp", 0L));
    }
}
