package io.basalt.broker.protocol;

import java.util.List;
import java.util.Map;

/** RocketMQ's {@code GetConsumerListByGroupResponseBody}: the client ids of a group's live consumers. */
public record GetConsumerListByGroupResponseBody(List<String> consumerIdList) {

    public GetConsumerListByGroupResponseBody {
        consumerIdList = List.copyOf(consumerIdList);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("consumerIdList", consumerIdList);
        return Json.encode(json);
    }

    public static GetConsumerListByGroupResponseBody decode(byte[] body) {
        return new GetConsumerListByGroupResponseBody(
            JsonObject.parse(body, "GetConsumerListByGroupResponseBody").list("consumerIdList", JsonObject::asString));
    }
}
