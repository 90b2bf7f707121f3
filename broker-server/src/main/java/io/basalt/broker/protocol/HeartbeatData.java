package io.basalt.broker.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.JsonConfigFile;

/**
 * The HEART_BEAT body as the 5.2.0 client writes it (fastjson): the client id, its producer groups and,
 * per consumer group, the consume type, model, start point and TAG/SQL92 subscriptions.
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
        JsonNode root = JsonConfigFile.MAPPER.readTree(body);
        if (root == null || !root.isObject()) {
            throw new IOException("heartbeat body is not a JSON object");
        }
        List<String> producers = new ArrayList<>();
        for (JsonNode p : root.path("producerDataSet")) {
            producers.add(p.path("groupName").asText());
        }
        List<ConsumerData> consumers = new ArrayList<>();
        for (JsonNode c : root.path("consumerDataSet")) {
            List<Subscription> subs = new ArrayList<>();
            for (JsonNode s : c.path("subscriptionDataSet")) {
                subs.add(new Subscription(s.path("topic").asText(), s.path("subString").asText("*"),
                    s.path("expressionType").asText("TAG"), s.path("subVersion").asLong(0)));
            }
            consumers.add(new ConsumerData(c.path("groupName").asText(), c.path("consumeType").asText(null),
                c.path("messageModel").asText(null), c.path("consumeFromWhere").asText(null), subs));
        }
        return new HeartbeatData(root.path("clientID").asText(), producers, consumers);
    }
}
