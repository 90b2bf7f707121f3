package io.basalt.broker.protocol;

import java.util.Map;

/**
 * RocketMQ's {@code QuerySubscriptionResponseBody}, the QUERY_SUBSCRIPTION_BY_CONSUMER body: the online
 * subscription of a group to a topic; {@code subscriptionData} is left out when there is none.
 */
public record QuerySubscriptionResponseBody(String group, String topic, SubscriptionData subscriptionData) {

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("group", group);
        if (subscriptionData != null) {
            json.put("subscriptionData", subscriptionData.toJson());
        }
        json.put("topic", topic);
        return Json.encode(json);
    }
}
