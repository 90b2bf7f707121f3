package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** RocketMQ's {@code ClusterInfo}: the GET_BROKER_CLUSTER_INFO response body. */
public record ClusterInfo(Map<String, BrokerData> brokerAddrTable, Map<String, Set<String>> clusterAddrTable) {

    public ClusterInfo {
        brokerAddrTable = Map.copyOf(brokerAddrTable);
        clusterAddrTable = Map.copyOf(clusterAddrTable);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> brokers = new LinkedHashMap<>();
        brokerAddrTable.forEach((name, data) -> brokers.put(name, data.toJson()));
        Map<String, Object> clusters = new LinkedHashMap<>();
        clusterAddrTable.forEach((name, members) -> clusters.put(name, new TreeSet<>(members)));
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerAddrTable", brokers);
        json.put("clusterAddrTable", clusters);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    public static ClusterInfo decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "ClusterInfo");
        return new ClusterInfo(json.map("brokerAddrTable", JsonObject::asString, BrokerData::fromJson),
            json.map("clusterAddrTable", JsonObject::asString, members -> JsonObject.asSet(members, JsonObject::asString)));
    }
}
