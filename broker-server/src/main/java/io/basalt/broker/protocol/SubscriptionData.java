package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * RocketMQ's {@code SubscriptionData}: one topic a consumer group subscribes to, with its filter
 * expression ({@code subString}, e.g. {@code "TagA || TagB"} or {@code "*"}) and the parsed tags and
 * their hash codes.
 */
public record SubscriptionData(String topic, String subString, Set<String> tagsSet, Set<Integer> codeSet,
                               long subVersion, String expressionType, boolean classFilterMode) {

    /** RocketMQ's {@code ExpressionType.TAG}, the default. */
    public static final String EXPRESSION_TYPE_TAG = "TAG";

    public SubscriptionData {
        tagsSet = Set.copyOf(tagsSet);
        codeSet = Set.copyOf(codeSet);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("classFilterMode", classFilterMode);
        json.put("codeSet", new TreeSet<>(codeSet));
        json.put("expressionType", expressionType);
        json.put("subString", subString);
        json.put("subVersion", subVersion);
        json.put("tagsSet", new TreeSet<>(tagsSet));
        json.put("topic", topic);
        return json;
    }

    public static SubscriptionData fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "SubscriptionData");
        return new SubscriptionData(json.string("topic", null), json.string("subString", null),
            json.set("tagsSet", JsonObject::asString),
            json.set("codeSet", code -> (int) JsonObject.asLong(code)),
            json.longValue("subVersion", 0L), json.string("expressionType", EXPRESSION_TYPE_TAG),
            json.bool("classFilterMode", false));
    }
}
