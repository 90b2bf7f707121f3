package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** RocketMQ's {@code ConsumerConnection}: the GET_CONSUMER_CONNECTION_LIST response body. */
public record ConsumerConnection(Set<Connection> connectionSet, Map<String, SubscriptionData> subscriptionTable,
                                 String consumeType, String messageModel, String consumeFromWhere) {

    public ConsumerConnection {
        connectionSet = Set.copyOf(connectionSet);
        subscriptionTable = Map.copyOf(subscriptionTable);
    }

    public byte[] encode() {
        Map<String, Object> subscriptions = new LinkedHashMap<>();
        subscriptionTable.forEach((topic, data) -> subscriptions.put(topic, data.toJson()));
        Map<String, Object> json = JsonObject.fields();
        json.put("connectionSet", connectionSet.stream().map(Connection::toJson).toList());
        json.put("consumeFromWhere", consumeFromWhere);
        json.put("consumeType", consumeType);
        json.put("messageModel", messageModel);
        json.put("subscriptionTable", subscriptions);
        return Json.encode(json);
    }

    public static ConsumerConnection decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "ConsumerConnection");
        return new ConsumerConnection(json.set("connectionSet", Connection::fromJson),
            json.map("subscriptionTable", JsonObject::asString, SubscriptionData::fromJson),
            json.string("consumeType", null), json.string("messageModel", null), json.string("consumeFromWhere", null));
    }
}
