package io.basalt.broker.protocol;

import java.util.Map;
import java.util.TreeMap;

/** RocketMQ's {@code KVTable}: string pairs, e.g. the GET_BROKER_RUNTIME_INFO response body. */
public record KVTable(Map<String, String> table) {

    public KVTable {
        table = Map.copyOf(table);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("table", new TreeMap<>(table));
        return Json.encode(json);
    }

    public static KVTable decode(byte[] body) {
        return new KVTable(JsonObject.parse(body, "KVTable").map("table", JsonObject::asString, JsonObject::asString));
    }
}
