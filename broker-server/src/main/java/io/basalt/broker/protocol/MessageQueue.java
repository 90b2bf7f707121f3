package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code MessageQueue}: one queue of a topic on a broker. Also a map key, written unquoted. */
public record MessageQueue(String topic, String brokerName, int queueId) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerName", brokerName);
        json.put("queueId", queueId);
        json.put("topic", topic);
        return json;
    }

    public static MessageQueue fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "MessageQueue");
        return new MessageQueue(json.string("topic", null), json.string("brokerName", null), json.intValue("queueId", 0));
    }
}
