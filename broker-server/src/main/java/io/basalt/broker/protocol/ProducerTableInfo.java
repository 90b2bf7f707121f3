package io.basalt.broker.protocol;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code ProducerTableInfo}: the GET_ALL_PRODUCER_INFO response body, every producer group with its
 * producers ({@code ProducerInfo}).
 */
public record ProducerTableInfo(Map<String, List<ProducerInfo>> data) {

    /**
     * One producer connection: {@code remoteIP} is the socket address as Java prints it ({@code /ip:port}),
     * {@code language} a LanguageCode name.
     */
    public record ProducerInfo(String clientId, String remoteIP, String language, int version, long lastUpdateTimestamp) {

        Map<String, Object> toJson() {
            Map<String, Object> json = JsonObject.fields();
            json.put("clientId", clientId);
            json.put("language", language);
            json.put("lastUpdateTimestamp", lastUpdateTimestamp);
            json.put("remoteIP", remoteIP);
            json.put("version", version);
            return json;
        }
    }

    public ProducerTableInfo {
        Map<String, List<ProducerInfo>> copy = new LinkedHashMap<>();
        data.forEach((group, producers) -> copy.put(group, List.copyOf(producers)));
        data = copy;
    }

    public byte[] encode() {
        Map<String, Object> groups = JsonObject.ordered();
        data.forEach((group, producers) -> groups.put(group, producers.stream().map(ProducerInfo::toJson).toList()));
        Map<String, Object> json = JsonObject.fields();
        json.put("data", groups);
        return Json.encode(json);
    }
}
