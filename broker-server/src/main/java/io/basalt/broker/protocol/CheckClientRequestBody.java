package io.basalt.broker.protocol;

/**
 * What the broker reads of RocketMQ's {@code CheckClientRequestBody} (CHECK_CLIENT_CONFIG): the
 * expression type of the subscription the client is about to use, {@code null} when it sends none.
 */
public record CheckClientRequestBody(String expressionType) {

    public static CheckClientRequestBody decode(byte[] body) {
        JsonObject subscription = JsonObject.parse(body, "CheckClientRequestBody").object("subscriptionData");
        return new CheckClientRequestBody(subscription == null ? null : subscription.string("expressionType", null));
    }
}
