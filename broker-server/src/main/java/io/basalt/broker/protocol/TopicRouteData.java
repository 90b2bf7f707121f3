package io.basalt.broker.protocol;

import java.util.List;
import java.util.Map;

/** RocketMQ's {@code TopicRouteData}: the GET_ROUTEINFO_BY_TOPIC response body. */
public record TopicRouteData(String orderTopicConf, List<QueueData> queueDatas, List<BrokerData> brokerDatas) {

    public TopicRouteData {
        queueDatas = List.copyOf(queueDatas);
        brokerDatas = List.copyOf(brokerDatas);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerDatas", brokerDatas.stream().map(BrokerData::toJson).toList());
        // the client copies this table without a null check
        json.put("filterServerTable", Map.of());
        json.put("orderTopicConf", orderTopicConf);
        json.put("queueDatas", queueDatas.stream().map(QueueData::toJson).toList());
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    public static TopicRouteData decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "TopicRouteData");
        return new TopicRouteData(json.string("orderTopicConf", null), json.list("queueDatas", QueueData::fromJson),
            json.list("brokerDatas", BrokerData::fromJson));
    }
}
