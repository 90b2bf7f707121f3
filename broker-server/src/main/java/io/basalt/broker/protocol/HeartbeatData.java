package io.basalt.broker.protocol;

import io.basalt.remoting.json.JsonException;
import java.io.IOException;
import java.util.List;

/**
 * The HEART_BEAT body as the 5.2.0 client writes it (fastjson): the client id, its producer groups and,
 * per consumer group, the consume type, model, start point and TAG/SQL92 subscriptions. Read through
 * {@link Json}, as every body.
 */
public record HeartbeatData(String clientId, List<String> producerGroups, List<ConsumerData> consumers) {

    public record ConsumerData(String groupName, String consumeType, String messageModel, String consumeFromWhere,
                               List<Subscription> subscriptions) {
    }

    /** One subscription: topic, expression (e.g. {@code TagA || TagB}), type and version. */
    public record Subscription(String topic, String subString, String expressionType, long subVersion) {
    }

    /** @throws IOException when the body is not the JSON of a HeartbeatData */
    public static HeartbeatData decode(byte[] body) throws IOException {
        if (body == null || body.length == 0) {
            throw new IOException("heartbeat without a body");
        }
        try {
            JsonObject root = JsonObject.parse(body, "HeartbeatData");
            List<String> producers = root.list("producerDataSet",
                p -> JsonObject.of(p, "ProducerData").string("groupName", ""));
            List<ConsumerData> consumers = root.list("consumerDataSet", HeartbeatData::consumerData);
            return new HeartbeatData(root.string("clientID", ""), producers, consumers);
        } catch (JsonException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static ConsumerData consumerData(Object tree) {
        JsonObject c = JsonObject.of(tree, "ConsumerData");
        List<Subscription> subs = c.list("subscriptionDataSet", s -> {
            JsonObject sub = JsonObject.of(s, "SubscriptionData");
            return new Subscription(sub.string("topic", ""), sub.string("subString", "*"),
                sub.string("expressionType", "TAG"), sub.longValue("subVersion", 0));
        });
        return new ConsumerData(c.string("groupName", ""), c.string("consumeType", null),
            c.string("messageModel", null), c.string("consumeFromWhere", null), subs);
    }
}
