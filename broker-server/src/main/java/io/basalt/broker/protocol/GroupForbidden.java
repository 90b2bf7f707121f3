package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code GroupForbidden}: whether a group may read a topic (the UPDATE_AND_GET_GROUP_FORBIDDEN answer). */
public record GroupForbidden(String group, String topic, boolean readable) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("group", group);
        json.put("readable", readable);
        json.put("topic", topic);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }
}
