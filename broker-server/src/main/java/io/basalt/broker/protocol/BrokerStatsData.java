package io.basalt.broker.protocol;

import java.util.Map;

/**
 * RocketMQ's {@code BrokerStatsData}, the VIEW_BROKER_STATS_DATA response body: one stats item's minute, hour and
 * day windows, each a {@code BrokerStatsItem} ({@code sum}, {@code tps}, {@code avgpt}).
 */
public record BrokerStatsData(Item statsMinute, Item statsHour, Item statsDay) {

    /** RocketMQ's {@code BrokerStatsItem}. */
    public record Item(long sum, double tps, double avgpt) {
        Map<String, Object> toJson() {
            Map<String, Object> json = JsonObject.fields();
            json.put("avgpt", avgpt);
            json.put("sum", sum);
            json.put("tps", tps);
            return json;
        }

        static Item fromJson(Object tree) {
            JsonObject json = JsonObject.of(tree, "BrokerStatsItem");
            return new Item(json.longValue("sum", 0L), json.doubleValue("tps", 0), json.doubleValue("avgpt", 0));
        }
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("statsDay", statsDay.toJson());
        json.put("statsHour", statsHour.toJson());
        json.put("statsMinute", statsMinute.toJson());
        return Json.encode(json);
    }

    public static BrokerStatsData decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "BrokerStatsData");
        return new BrokerStatsData(Item.fromJson(json.raw("statsMinute")), Item.fromJson(json.raw("statsHour")),
            Item.fromJson(json.raw("statsDay")));
    }
}
