package io.basalt.broker.protocol;

import java.util.Collection;
import java.util.Map;

import io.basalt.remoting.json.JsonException;

/**
 * RocketMQ's {@code QueryAssignmentRequestBody} (QUERY_ASSIGNMENT, sent by a push consumer with
 * {@code clientRebalance=false}): {@code {"clientId":"…","consumerGroup":"cg","messageModel":"CLUSTERING",
 * "strategyName":"AVG","topic":"T"}}; and the {@code QueryAssignmentResponseBody} of the queues assigned, each with
 * its request mode: {@code {"messageQueueAssignments":[{"messageQueue":{…},"mode":"POP"}]}}.
 */
public record QueryAssignmentBody(String topic, String consumerGroup, String clientId, String strategyName,
                                  String messageModel) {

    public static QueryAssignmentBody decode(byte[] body) {
        if (body == null || body.length == 0) {
            throw new JsonException("QueryAssignmentRequestBody: the request has no body");
        }
        JsonObject json = JsonObject.parse(body, "QueryAssignmentRequestBody");
        return new QueryAssignmentBody(json.string("topic", null), json.string("consumerGroup", null),
            json.string("clientId", null), json.string("strategyName", null), json.string("messageModel", null));
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("clientId", clientId);
        json.put("consumerGroup", consumerGroup);
        json.put("messageModel", messageModel);
        json.put("strategyName", strategyName);
        json.put("topic", topic);
        return Json.encode(json);
    }

    /**
     * The response body: each queue with {@code mode}; {@code null} queues give {@code {}}, RocketMQ's "no valid
     * assignment now" (the client keeps its queues and asks again at its next rebalance).
     */
    public static byte[] assignments(Collection<MessageQueue> queues, String mode) {
        Map<String, Object> json = JsonObject.fields();
        if (queues != null) {
            json.put("messageQueueAssignments", queues.stream().map(q -> {
                Map<String, Object> assignment = JsonObject.fields();
                assignment.put("messageQueue", q.toJson());
                assignment.put("mode", mode);
                return assignment;
            }).toList());
        }
        return Json.encode(json);
    }
}
