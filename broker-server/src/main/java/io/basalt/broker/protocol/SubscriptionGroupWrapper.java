package io.basalt.broker.protocol;

import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupConfig.SimpleSubscriptionData;
import io.basalt.remoting.json.JsonException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * RocketMQ's {@code SubscriptionGroupWrapper}: every group config and the table's version, the
 * GET_ALL_SUBSCRIPTIONGROUP_CONFIG response body and the core of {@code config/subscriptionGroup.json}.
 * Also the JSON form of one {@link SubscriptionGroupConfig} (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP request,
 * GET_SUBSCRIPTIONGROUP_CONFIG response).
 */
public record SubscriptionGroupWrapper(Map<String, SubscriptionGroupConfig> subscriptionGroupTable, DataVersion dataVersion) {

    public SubscriptionGroupWrapper {
        subscriptionGroupTable = Collections.unmodifiableMap(new LinkedHashMap<>(subscriptionGroupTable));
    }

    public Map<String, Object> toJson() {
        Map<String, Object> groups = new LinkedHashMap<>();
        subscriptionGroupTable.forEach((name, config) -> groups.put(name, toJson(config)));
        Map<String, Object> json = JsonObject.fields();
        json.put("dataVersion", dataVersion.toJson());
        json.put("subscriptionGroupTable", groups);
        return json;
    }

    public byte[] encode() {
        return Json.encode(toJson());
    }

    /** RocketMQ's {@code SubscriptionGroupConfig} properties as fastjson writes them (an empty set is left out, as null is). */
    public static Map<String, Object> toJson(SubscriptionGroupConfig config) {
        Map<String, Object> json = JsonObject.fields();
        json.put("attributes", new TreeMap<>(config.attributes()));
        json.put("brokerId", config.brokerId());
        json.put("consumeBroadcastEnable", config.consumeBroadcastEnable());
        json.put("consumeEnable", config.consumeEnable());
        json.put("consumeFromMinEnable", config.consumeFromMinEnable());
        json.put("consumeMessageOrderly", config.consumeMessageOrderly());
        json.put("consumeTimeoutMinute", config.consumeTimeoutMinute());
        json.put("groupName", config.groupName());
        json.put("groupRetryPolicy", new TreeMap<>(config.groupRetryPolicy()));
        json.put("groupSysFlag", config.groupSysFlag());
        json.put("notifyConsumerIdsChangedEnable", config.notifyConsumerIdsChangedEnable());
        json.put("retryMaxTimes", config.retryMaxTimes());
        json.put("retryQueueNums", config.retryQueueNums());
        if (!config.subscriptionDataSet().isEmpty()) {
            json.put("subscriptionDataSet", config.subscriptionDataSet().stream().map(SubscriptionGroupWrapper::simpleToJson).toList());
        }
        json.put("whichBrokerWhenConsumeSlowly", config.whichBrokerWhenConsumeSlowly());
        return json;
    }

    private static Map<String, Object> simpleToJson(SimpleSubscriptionData data) {
        Map<String, Object> json = JsonObject.fields();
        json.put("expression", data.expression());
        json.put("expressionType", data.expressionType());
        json.put("topic", data.topic());
        json.put("version", data.version());
        return json;
    }

    /**
     * Reads RocketMQ's JSON form; a missing property takes RocketMQ's default, a missing {@code groupName}
     * the table key {@code name} (null when there is none).
     */
    public static SubscriptionGroupConfig configFromJson(String name, Object tree) {
        JsonObject json = JsonObject.of(tree, "SubscriptionGroupConfig");
        SubscriptionGroupConfig d = SubscriptionGroupConfig.defaults(json.string("groupName", name));
        Map<String, Object> retryPolicy = json.map("groupRetryPolicy", JsonObject::asString, value -> value);
        List<SimpleSubscriptionData> subscriptions = json.list("subscriptionDataSet", SubscriptionGroupWrapper::simpleFromJson);
        return new SubscriptionGroupConfig(d.groupName(), json.bool("consumeEnable", d.consumeEnable()),
            json.bool("consumeFromMinEnable", d.consumeFromMinEnable()),
            json.bool("consumeBroadcastEnable", d.consumeBroadcastEnable()),
            json.bool("consumeMessageOrderly", d.consumeMessageOrderly()),
            json.intValue("retryQueueNums", d.retryQueueNums()), json.intValue("retryMaxTimes", d.retryMaxTimes()),
            retryPolicy.isEmpty() ? d.groupRetryPolicy() : retryPolicy, json.longValue("brokerId", d.brokerId()),
            json.longValue("whichBrokerWhenConsumeSlowly", d.whichBrokerWhenConsumeSlowly()),
            json.bool("notifyConsumerIdsChangedEnable", d.notifyConsumerIdsChangedEnable()),
            json.intValue("groupSysFlag", d.groupSysFlag()), json.intValue("consumeTimeoutMinute", d.consumeTimeoutMinute()),
            new LinkedHashSet<>(subscriptions), json.map("attributes", JsonObject::asString, JsonObject::asString));
    }

    private static SimpleSubscriptionData simpleFromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "SimpleSubscriptionData");
        return new SimpleSubscriptionData(json.string("topic", null), json.string("expressionType", null),
            json.string("expression", null), json.longValue("version", 0L));
    }

    /** @throws JsonException if the body is not one group config */
    public static SubscriptionGroupConfig decodeConfig(byte[] body) {
        return configFromJson(null, Json.parse(body));
    }

    public static SubscriptionGroupWrapper fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "SubscriptionGroupWrapper");
        Map<String, SubscriptionGroupConfig> table = new LinkedHashMap<>();
        JsonObject.asMap(json.raw("subscriptionGroupTable"), JsonObject::asString, value -> value)
            .forEach((name, value) -> table.put(name, configFromJson(name, value)));
        Object version = json.raw("dataVersion");
        return new SubscriptionGroupWrapper(table, version == null ? new DataVersion(0L, 0L, 0L) : DataVersion.fromJson(version));
    }

    /** @throws JsonException if the body is not a group table */
    public static SubscriptionGroupWrapper decode(byte[] body) {
        return fromJson(Json.parse(body));
    }
}
