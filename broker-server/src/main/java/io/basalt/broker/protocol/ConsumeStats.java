package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RocketMQ's {@code ConsumeStats}: the GET_CONSUME_STATS response body. Keyed by queue; the keys are
 * written as unquoted JSON objects, as fastjson does.
 */
public record ConsumeStats(Map<MessageQueue, OffsetWrapper> offsetTable, double consumeTps) {

    public ConsumeStats {
        offsetTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(offsetTable));
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    Map<String, Object> toJson() {
        Map<Object, Object> offsets = JsonObject.ordered();
        offsetTable.forEach((queue, offset) -> offsets.put(queue.toJson(), offset.toJson()));
        Map<String, Object> json = JsonObject.fields();
        json.put("consumeTps", consumeTps);
        json.put("offsetTable", offsets);
        return json;
    }

    /** RocketMQ's {@code computeTotalDiff}: Σ (brokerOffset − consumerOffset). */
    public long totalDiff() {
        return offsetTable.values().stream().mapToLong(o -> o.brokerOffset() - o.consumerOffset()).sum();
    }

    /** RocketMQ's {@code computeInflightTotalDiff}: Σ (pullOffset − consumerOffset). */
    public long inflightDiff() {
        return offsetTable.values().stream().mapToLong(o -> o.pullOffset() - o.consumerOffset()).sum();
    }

    public static ConsumeStats decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "ConsumeStats");
        return new ConsumeStats(json.map("offsetTable", MessageQueue::fromJson, OffsetWrapper::fromJson),
            json.doubleValue("consumeTps", 0));
    }
}
