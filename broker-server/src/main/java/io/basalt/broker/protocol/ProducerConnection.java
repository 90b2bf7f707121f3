package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;

/** RocketMQ's {@code ProducerConnection}: the GET_PRODUCER_CONNECTION_LIST response body. */
public record ProducerConnection(Set<Connection> connectionSet) {

    public ProducerConnection {
        connectionSet = Set.copyOf(connectionSet);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("connectionSet", connectionSet.stream().map(Connection::toJson).toList());
        return Json.encode(json);
    }
}
