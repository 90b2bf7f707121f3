package io.basalt.broker.protocol;

import java.util.Map;
import java.util.TreeMap;

/** RocketMQ's {@code QueryCorrectionOffsetBody}: queueId → correction offset, the ids written as unquoted numbers. */
public record QueryCorrectionOffsetBody(Map<Integer, Long> correctionOffsets) {

    public QueryCorrectionOffsetBody {
        correctionOffsets = java.util.Collections.unmodifiableMap(new TreeMap<>(correctionOffsets));
    }

    public byte[] encode() {
        Map<Object, Object> offsets = JsonObject.ordered();
        correctionOffsets.forEach(offsets::put);
        Map<String, Object> json = JsonObject.fields();
        json.put("correctionOffsets", offsets);
        return Json.encode(json);
    }
}
