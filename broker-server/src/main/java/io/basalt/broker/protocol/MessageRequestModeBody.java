package io.basalt.broker.protocol;

import java.util.Map;

import io.basalt.remoting.json.JsonException;

/**
 * RocketMQ's {@code SetMessageRequestModeRequestBody}: the SET_MESSAGE_REQUEST_MODE body and one entry of
 * {@code messageRequestMode.json}, {@code {"consumerGroup":"cg","mode":"POP","popShareQueueNum":0,"topic":"T"}}.
 * A missing mode reads as PULL and a missing share count as 0, as the RocketMQ class initialises them.
 *
 * @param mode             {@code PULL} or {@code POP}
 * @param popShareQueueNum POP only: how many following clients' queues a client also pops (≤ 0: every queue)
 */
public record MessageRequestModeBody(String topic, String consumerGroup, String mode, int popShareQueueNum) {

    public static MessageRequestModeBody decode(byte[] body) {
        if (body == null || body.length == 0) {
            throw new JsonException("SetMessageRequestModeRequestBody: the request has no body");
        }
        return fromJson(Json.parse(body));
    }

    public static MessageRequestModeBody fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "SetMessageRequestModeRequestBody");
        return new MessageRequestModeBody(json.string("topic", null), json.string("consumerGroup", null),
            json.string("mode", "PULL"), json.intValue("popShareQueueNum", 0));
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("consumerGroup", consumerGroup);
        json.put("mode", mode);
        json.put("popShareQueueNum", popShareQueueNum);
        json.put("topic", topic);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }
}
