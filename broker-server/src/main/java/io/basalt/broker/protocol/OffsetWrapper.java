package io.basalt.broker.protocol;

import java.util.Map;

/**
 * RocketMQ's {@code OffsetWrapper}: one queue's progress for a consumer group: the broker's max
 * offset, the committed consumer offset, the pull offset and the store time of the last consumed
 * message.
 */
public record OffsetWrapper(long brokerOffset, long consumerOffset, long pullOffset, long lastTimestamp) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerOffset", brokerOffset);
        json.put("consumerOffset", consumerOffset);
        json.put("lastTimestamp", lastTimestamp);
        json.put("pullOffset", pullOffset);
        return json;
    }

    public static OffsetWrapper fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "OffsetWrapper");
        return new OffsetWrapper(json.longValue("brokerOffset", 0L), json.longValue("consumerOffset", 0L),
            json.longValue("pullOffset", 0L), json.longValue("lastTimestamp", 0L));
    }
}
