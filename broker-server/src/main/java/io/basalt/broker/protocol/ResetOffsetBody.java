package io.basalt.broker.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code ResetOffsetBody}: the queues an INVOKE_BROKER_TO_RESET_OFFSET reset and their new offsets
 * (also the body of RESET_CONSUMER_CLIENT_OFFSET to a client), keyed by queue written unquoted; and
 * {@code ResetOffsetBodyForC}, the same as a list, for a request whose language is CPP.
 */
public record ResetOffsetBody(Map<MessageQueue, Long> offsetTable) {

    public ResetOffsetBody {
        offsetTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(offsetTable));
    }

    public byte[] encode() {
        Map<Object, Object> offsets = JsonObject.ordered();
        offsetTable.forEach((queue, offset) -> offsets.put(queue.toJson(), offset));
        Map<String, Object> json = JsonObject.fields();
        json.put("offsetTable", offsets);
        return Json.encode(json);
    }

    /** {@code {"offsetTable":[{"brokerName":…,"offset":…,"queueId":…,"topic":…}]}}. */
    public byte[] encodeForC() {
        List<Object> entries = new ArrayList<>();
        offsetTable.forEach((queue, offset) -> {
            Map<String, Object> entry = queue.toJson();
            entry.put("offset", offset);
            entries.add(entry);
        });
        Map<String, Object> json = JsonObject.fields();
        json.put("offsetTable", entries);
        return Json.encode(json);
    }

    public static ResetOffsetBody decode(byte[] body) {
        return new ResetOffsetBody(JsonObject.parse(body, "ResetOffsetBody")
            .map("offsetTable", MessageQueue::fromJson, JsonObject::asLong));
    }
}
