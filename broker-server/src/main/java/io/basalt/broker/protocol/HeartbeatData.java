package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;

/** RocketMQ's {@code HeartbeatData}: the HEART_BEAT request body a client sends every 30 s. */
public record HeartbeatData(String clientID, Set<ProducerData> producerDataSet, Set<ConsumerData> consumerDataSet,
                            int heartbeatFingerprint, boolean withoutSub) {

    public HeartbeatData {
        producerDataSet = Set.copyOf(producerDataSet);
        consumerDataSet = Set.copyOf(consumerDataSet);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("clientID", clientID);
        json.put("consumerDataSet", consumerDataSet.stream().map(ConsumerData::toJson).toList());
        json.put("heartbeatFingerprint", heartbeatFingerprint);
        json.put("producerDataSet", producerDataSet.stream().map(ProducerData::toJson).toList());
        json.put("withoutSub", withoutSub);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    /** @throws JsonException if the body is not a heartbeat */
    public static HeartbeatData decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "HeartbeatData");
        return new HeartbeatData(json.string("clientID", null), json.set("producerDataSet", ProducerData::fromJson),
            json.set("consumerDataSet", ConsumerData::fromJson), json.intValue("heartbeatFingerprint", 0),
            json.bool("withoutSub", false));
    }
}
