package io.basalt.broker.protocol;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * RocketMQ's {@code LockBatchRequestBody} / {@code UnlockBatchRequestBody} (LOCK_BATCH_MQ, UNLOCK_BATCH_MQ):
 * a consumer group's client asking for its queues; and the {@code LockBatchResponseBody} of the queues
 * it got.
 */
public record LockBatchBody(String consumerGroup, String clientId, Set<MessageQueue> mqSet) {

    public LockBatchBody {
        // the request's order, so that a lock answers in it
        mqSet = Collections.unmodifiableSet(new LinkedHashSet<>(mqSet));
    }

    /** A missing group or client id reads as "" (no such group), a missing queue set as none. */
    public static LockBatchBody decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "LockBatchRequestBody");
        return new LockBatchBody(json.string("consumerGroup", ""), json.string("clientId", ""),
            json.set("mqSet", MessageQueue::fromJson));
    }

    /** {@code {"lockOKMQSet":[...]}}: the queues now locked by the requesting client. */
    public static byte[] lockedBody(Collection<MessageQueue> locked) {
        Map<String, Object> json = JsonObject.fields();
        json.put("lockOKMQSet", locked.stream().map(MessageQueue::toJson).toList());
        return Json.encode(json);
    }
}
