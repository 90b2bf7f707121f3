package io.basalt.store;

import java.util.Set;

/**
 * Filter applied to ConsumeQueue entries during {@link MessageStore#getMessage}, by tag hash code
 * only. Different tags can share a hash code, so the caller (the pull processor or the client)
 * compares the real tag of each returned message, as RocketMQ does.
 */
@FunctionalInterface
public interface MessageFilter {
    /** True if a message whose TAGS hash to {@code tagsCode} may match. */
    boolean isMatchedByConsumeQueue(long tagsCode);

    /** Every message. */
    static MessageFilter all() {
        return tagsCode -> true;
    }

    /** Messages whose tag hash is one of the given tags' ("*" or no tag: every message). */
    static MessageFilter byTags(Set<String> tags) {
        if (tags.isEmpty() || tags.contains("*")) {
            return all();
        }
        long[] codes = tags.stream().mapToLong(t -> t.hashCode()).toArray();
        return tagsCode -> {
            for (long c : codes) {
                if (c == tagsCode) {
                    return true;
                }
            }
            return false;
        };
    }
}
