package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import io.basalt.remoting.json.JsonException;

/**
 * RocketMQ's {@code MessageRequestModeSerializeWrapper}: the GET_ALL_MESSAGE_REQUEST_MODE body and the content of
 * {@code config/messageRequestMode.json}, topic → group → entry:
 * {@code {"messageRequestModeMap":{"T":{"cg":{"consumerGroup":"cg","mode":"POP","popShareQueueNum":0,"topic":"T"}}}}}.
 */
public final class MessageRequestModeTable {
    private MessageRequestModeTable() {
    }

    /** The table of a body or file; one without {@code messageRequestModeMap} is an error. */
    public static Map<String, Map<String, MessageRequestModeBody>> decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "MessageRequestModeSerializeWrapper");
        if (json.raw("messageRequestModeMap") == null) {
            throw new JsonException("MessageRequestModeSerializeWrapper: no messageRequestModeMap");
        }
        Map<String, Map<String, MessageRequestModeBody>> table = new LinkedHashMap<>();
        json.map("messageRequestModeMap", JsonObject::asString, groups -> JsonObject.asMap(groups,
                JsonObject::asString, MessageRequestModeBody::fromJson))
            .forEach((topic, groups) -> table.put(topic, new LinkedHashMap<>(groups)));
        return table;
    }

    public static byte[] encode(Map<String, Map<String, MessageRequestModeBody>> table) {
        Map<String, Object> topics = new TreeMap<>();
        table.forEach((topic, groups) -> {
            Map<String, Object> byGroup = new TreeMap<>();
            groups.forEach((group, entry) -> byGroup.put(group, entry.toJson()));
            topics.put(topic, byGroup);
        });
        Map<String, Object> json = JsonObject.fields();
        json.put("messageRequestModeMap", topics);
        return Json.encode(json);
    }
}
