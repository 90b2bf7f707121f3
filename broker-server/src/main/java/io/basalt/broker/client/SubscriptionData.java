package io.basalt.broker.client;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One topic subscription of a consumer group, RocketMQ's {@code SubscriptionData}: a TAG expression
 * ({@code *} or an empty expression means every message) or a SQL92 one (compiled by
 * {@code io.basalt.broker.filter.ConsumerFilters}). Immutable.
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

    /**
     * A subscription of the given expression type: TAG expressions parsed as {@link #ofTags}; any other
     * (SQL92) kept as its text, without tags, as RocketMQ's FilterAPI builds it.
     */
    public static SubscriptionData of(String topic, String subString, long subVersion, String expressionType) {
        if (isTagType(expressionType)) {
            return ofTags(topic, subString, subVersion);
        }
        return new SubscriptionData(topic, subString == null ? "" : subString.trim(), Set.of(), Set.of(), subVersion,
            expressionType);
    }

    public boolean matchesAll() {
        return tagsSet.isEmpty() || tagsSet.contains(SUB_ALL);
    }

    /** Tag-hash check of a ConsumeQueue entry (hash collisions pass; the client re-checks the tag). */
    public boolean matchesTagsCode(long tagsCode) {
        return matchesAll() || codeSet.contains((int) tagsCode) && tagsCode == (int) tagsCode;
    }

    /** RocketMQ's {@code ExpressionType.isTagType}: no type, an empty one, or TAG. */
    public boolean isTagType() {
        return isTagType(expressionType);
    }

    public static boolean isTagType(String expressionType) {
        return expressionType == null || expressionType.isEmpty() || "TAG".equals(expressionType);
    }
}
