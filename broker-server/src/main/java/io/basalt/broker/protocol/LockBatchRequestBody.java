package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;

/**
 * RocketMQ's {@code LockBatchRequestBody} and {@code UnlockBatchRequestBody} (same properties): the
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body of an orderly consumer.
 */
public record LockBatchRequestBody(String consumerGroup, String clientId, boolean onlyThisBroker,
                                   Set<MessageQueue> mqSet) {

    public LockBatchRequestBody {
        mqSet = Set.copyOf(mqSet);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("clientId", clientId);
        json.put("consumerGroup", consumerGroup);
        json.put("mqSet", mqSet.stream().map(MessageQueue::toJson).toList());
        json.put("onlyThisBroker", onlyThisBroker);
        return Json.encode(json);
    }

    public static LockBatchRequestBody decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "LockBatchRequestBody");
        return new LockBatchRequestBody(json.string("consumerGroup", null), json.string("clientId", null),
            json.bool("onlyThisBroker", false), json.set("mqSet", MessageQueue::fromJson));
    }
}
