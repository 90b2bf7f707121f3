package io.basalt.broker.protocol;

/**
 * What the broker reads of RocketMQ's {@code CheckClientRequestBody} (CHECK_CLIENT_CONFIG): the client, its
 * group, and the subscription it is about to use — its expression type ({@code null} when the client sends
 * no subscription or no type) and expression text.
 */
public record CheckClientRequestBody(String clientId, String group, String expressionType, String subString) {

    public static CheckClientRequestBody decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "CheckClientRequestBody");
        JsonObject subscription = json.object("subscriptionData");
        return new CheckClientRequestBody(json.string("clientId", null), json.string("group", null),
            subscription == null ? null : subscription.string("expressionType", null),
            subscription == null ? null : subscription.string("subString", null));
    }

    /** Whether the body carried a subscription at all. */
    public boolean hasSubscription() {
        return expressionType != null || subString != null;
    }
}
