package io.basalt.broker.protocol;

import java.util.Map;
import java.util.TreeMap;

/**
 * RocketMQ's {@code BrokerData}: one broker name (a master and its slaves) and its addresses by
 * broker id (0 is the master). fastjson writes the ids unquoted: {@code {0:"127.0.0.1:10911"}}.
 */
public record BrokerData(String cluster, String brokerName, Map<Long, String> brokerAddrs,
                         boolean enableActingMaster, String zoneName) {

    public BrokerData {
        brokerAddrs = Map.copyOf(brokerAddrs);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerAddrs", new TreeMap<>(brokerAddrs));
        json.put("brokerName", brokerName);
        json.put("cluster", cluster);
        json.put("enableActingMaster", enableActingMaster);
        json.put("zoneName", zoneName);
        return json;
    }

    public static BrokerData fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "BrokerData");
        return new BrokerData(json.string("cluster", null), json.string("brokerName", null),
            json.map("brokerAddrs", JsonObject::asLong, JsonObject::asString),
            json.bool("enableActingMaster", false), json.string("zoneName", null));
    }
}
