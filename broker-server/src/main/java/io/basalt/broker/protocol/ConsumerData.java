package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;

/**
 * RocketMQ's {@code ConsumerData}: one consumer group of a client in a heartbeat. The enum-valued
 * properties keep RocketMQ's constant names as strings ({@code consumeType}: CONSUME_ACTIVELY,
 * CONSUME_PASSIVELY, CONSUME_POP; {@code messageModel}: CLUSTERING, BROADCASTING;
 * {@code consumeFromWhere}: CONSUME_FROM_LAST_OFFSET, ...).
 */
public record ConsumerData(String groupName, String consumeType, String messageModel, String consumeFromWhere,
                           Set<SubscriptionData> subscriptionDataSet, boolean unitMode) {

    public ConsumerData {
        subscriptionDataSet = Set.copyOf(subscriptionDataSet);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("consumeFromWhere", consumeFromWhere);
        json.put("consumeType", consumeType);
        json.put("groupName", groupName);
        json.put("messageModel", messageModel);
        json.put("subscriptionDataSet", subscriptionDataSet.stream().map(SubscriptionData::toJson).toList());
        json.put("unitMode", unitMode);
        return json;
    }

    public static ConsumerData fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "ConsumerData");
        return new ConsumerData(json.string("groupName", null), json.string("consumeType", null),
            json.string("messageModel", null), json.string("consumeFromWhere", null),
            json.set("subscriptionDataSet", SubscriptionData::fromJson), json.bool("unitMode", false));
    }
}
