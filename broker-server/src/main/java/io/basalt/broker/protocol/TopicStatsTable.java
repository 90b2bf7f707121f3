package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RocketMQ's {@code TopicStatsTable}: the GET_TOPIC_STATS_INFO response body. Keyed by queue; the
 * keys are written as unquoted JSON objects, as fastjson does.
 */
public record TopicStatsTable(Map<MessageQueue, TopicOffset> offsetTable) {

    public TopicStatsTable {
        offsetTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(offsetTable));
    }

    public byte[] encode() {
        Map<Object, Object> offsets = JsonObject.ordered();
        offsetTable.forEach((queue, offset) -> offsets.put(queue.toJson(), offset.toJson()));
        Map<String, Object> json = JsonObject.fields();
        json.put("offsetTable", offsets);
        return Json.encode(json);
    }

    public static TopicStatsTable decode(byte[] body) {
        return new TopicStatsTable(JsonObject.parse(body, "TopicStatsTable")
            .map("offsetTable", MessageQueue::fromJson, TopicOffset::fromJson));
    }
}
