package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * RocketMQ's {@code GetConsumerStatusBody}. A client answers GET_CONSUMER_STATUS_FROM_CLIENT with its offsets in
 * {@code messageQueueTable}; the broker answers INVOKE_BROKER_TO_GET_CONSUMER_STATUS with {@code consumerTable},
 * clientId → (queue → offset), and an empty {@code messageQueueTable}.
 */
public record GetConsumerStatusBody(Map<MessageQueue, Long> messageQueueTable,
                                    Map<String, Map<MessageQueue, Long>> consumerTable) {

    public GetConsumerStatusBody {
        messageQueueTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(messageQueueTable));
        consumerTable = java.util.Collections.unmodifiableMap(new TreeMap<>(consumerTable));
    }

    public byte[] encode() {
        Map<String, Object> consumers = JsonObject.fields();
        consumerTable.forEach((clientId, offsets) -> consumers.put(clientId, queueMap(offsets)));
        Map<String, Object> json = JsonObject.fields();
        json.put("consumerTable", consumers);
        json.put("messageQueueTable", queueMap(messageQueueTable));
        return Json.encode(json);
    }

    private static Map<Object, Object> queueMap(Map<MessageQueue, Long> offsets) {
        Map<Object, Object> map = JsonObject.ordered();
        offsets.forEach((queue, offset) -> map.put(queue.toJson(), offset));
        return map;
    }

    public static GetConsumerStatusBody decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "GetConsumerStatusBody");
        Map<String, Map<MessageQueue, Long>> consumers = json.map("consumerTable", JsonObject::asString,
            tree -> JsonObject.asMap(tree, MessageQueue::fromJson, JsonObject::asLong));
        return new GetConsumerStatusBody(json.map("messageQueueTable", MessageQueue::fromJson, JsonObject::asLong),
            consumers);
    }
}
