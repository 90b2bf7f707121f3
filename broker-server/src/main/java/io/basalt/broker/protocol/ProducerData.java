package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code ProducerData}: one producer group of a client in a heartbeat. */
public record ProducerData(String groupName) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("groupName", groupName);
        return json;
    }

    public static ProducerData fromJson(Object tree) {
        return new ProducerData(JsonObject.of(tree, "ProducerData").string("groupName", null));
    }
}
