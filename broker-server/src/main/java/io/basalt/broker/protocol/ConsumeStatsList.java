package io.basalt.broker.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code ConsumeStatsList}, the GET_BROKER_CONSUME_STATS response body: per subscription group (a list
 * of one-entry maps, group → its {@link ConsumeStats} per topic), the broker's address and the totals of
 * {@code brokerOffset − consumerOffset} and {@code pullOffset − consumerOffset}.
 */
public record ConsumeStatsList(String brokerAddr, List<Map.Entry<String, List<ConsumeStats>>> consumeStatsList,
                               long totalDiff, long totalInflightDiff) {

    public ConsumeStatsList {
        consumeStatsList = List.copyOf(consumeStatsList);
    }

    public byte[] encode() {
        List<Object> groups = new ArrayList<>();
        for (Map.Entry<String, List<ConsumeStats>> e : consumeStatsList) {
            List<Object> stats = new ArrayList<>();
            e.getValue().forEach(s -> stats.add(s.toJson()));
            Map<String, Object> entry = JsonObject.fields();
            entry.put(e.getKey(), stats);
            groups.add(entry);
        }
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerAddr", brokerAddr);
        json.put("consumeStatsList", groups);
        json.put("totalDiff", totalDiff);
        json.put("totalInflightDiff", totalInflightDiff);
        return Json.encode(json);
    }
}
