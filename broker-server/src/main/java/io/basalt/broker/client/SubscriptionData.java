package io.basalt.broker.client;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One topic subscription of a consumer group, RocketMQ's {@code SubscriptionData} (TAG expressions;
 * {@code *} or an empty expression means every message). Immutable.
 */
public record SubscriptionData(String topic, String subString, Set<String> tagsSet, Set<Integer> codeSet,
                               long subVersion, String expressionType) {
    public static final String SUB_ALL = "*";

    public SubscriptionData {
        tagsSet = Set.copyOf(tagsSet);
        codeSet = Set.copyOf(codeSet);
    }

    /** Parses a TAG expression such as {@code "TagA || TagB"} as RocketMQ's FilterAPI does. */
    public static SubscriptionData ofTags(String topic, String subString, long subVersion) {
        String expression = subString == null || subString.isBlank() ? SUB_ALL : subString.trim();
        Set<String> tags = new LinkedHashSet<>();
        Set<Integer> codes = new LinkedHashSet<>();
        if (!SUB_ALL.equals(expression)) {
            for (String tag : expression.split("\\|\\|")) {
                String t = tag.trim();
                if (!t.isEmpty()) {
                    tags.add(t);
                    codes.add(t.hashCode());
                }
            }
        }
        return new SubscriptionData(topic, tags.isEmpty() ? SUB_ALL : expression, tags, codes, subVersion, "TAG");
    }

    public boolean matchesAll() {
        return tagsSet.isEmpty() || tagsSet.contains(SUB_ALL);
    }

    /** Tag-hash check of a ConsumeQueue entry (hash collisions pass; the client re-checks the tag). */
    public boolean matchesTagsCode(long tagsCode) {
        return matchesAll() || codeSet.contains((int) tagsCode) && tagsCode == (int) tagsCode;
    }

    public boolean isTagType() {
        return expressionType == null || "TAG".equals(expressionType);
    }
}
