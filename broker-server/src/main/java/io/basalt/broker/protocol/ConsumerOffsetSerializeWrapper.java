package io.basalt.broker.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.basalt.remoting.json.JsonException;

/**
 * RocketMQ's {@code ConsumerOffsetSerializeWrapper}: committed offsets, {@code topic@group} → queueId → offset,
 * and the table's version; the GET_ALL_CONSUMER_OFFSET response body. Written as fastjson writes it (queue ids
 * unquoted); both quoted and unquoted queue ids are read.
 */
public record ConsumerOffsetSerializeWrapper(Map<String, Map<Integer, Long>> offsetTable, DataVersion dataVersion) {

    public ConsumerOffsetSerializeWrapper {
        offsetTable = Collections.unmodifiableMap(new LinkedHashMap<>(offsetTable));
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("dataVersion", dataVersion.toJson());
        // Integer keys: the writer puts them unquoted, as fastjson writes RocketMQ's ConcurrentMap<Integer, Long>
        json.put("offsetTable", offsetTable);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    /** @throws JsonException if the body is not an offset table; a missing version reads as {@code fallbackVersion} */
    public static ConsumerOffsetSerializeWrapper decode(byte[] body, DataVersion fallbackVersion) {
        JsonObject json = JsonObject.parse(body, "ConsumerOffsetSerializeWrapper");
        Map<String, Map<Integer, Long>> table = new LinkedHashMap<>();
        JsonObject.asMap(json.raw("offsetTable"), JsonObject::asString, queues -> JsonObject.asMap(queues,
                ConsumerOffsetSerializeWrapper::queueId, JsonObject::asLong))
            .forEach(table::put);
        Object version = json.raw("dataVersion");
        return new ConsumerOffsetSerializeWrapper(table, version == null ? fallbackVersion : DataVersion.fromJson(version));
    }

    private static Integer queueId(Object key) {
        long id = JsonObject.asLong(key);
        if (id < 0 || id > Integer.MAX_VALUE) {
            throw new JsonException("queue id " + key + " is not a queue id");
        }
        return (int) id;
    }
}
