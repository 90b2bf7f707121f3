package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;

/** RocketMQ's {@code LockBatchResponseBody}: the queues a LOCK_BATCH_MQ request now holds. */
public record LockBatchResponseBody(Set<MessageQueue> lockOKMQSet) {

    public LockBatchResponseBody {
        lockOKMQSet = Set.copyOf(lockOKMQSet);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("lockOKMQSet", lockOKMQSet.stream().map(MessageQueue::toJson).toList());
        return Json.encode(json);
    }

    public static LockBatchResponseBody decode(byte[] body) {
        return new LockBatchResponseBody(JsonObject.parse(body, "LockBatchResponseBody").set("lockOKMQSet", MessageQueue::fromJson));
    }
}
