package io.basalt.store;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Filter applied during {@link MessageStore#getMessage}, in RocketMQ's two stages: first each
 * ConsumeQueue entry by its tag hash code ({@link #isMatchedByConsumeQueue}); then, only for a filter
 * that {@link #needsProperties() needs them}, each remaining message by the properties of its
 * CommitLog record ({@link #isMatchedByCommitLog}), read in place from the mapped record, nothing else of
 * the message decoded. Different tags can share a hash code, so for a tag filter the caller (the pull
 * processor or the client) compares the real tag of each returned message, as RocketMQ does.
 * Called on the thread that reads; an implementation used by concurrent pulls must be thread-safe.
 */
@FunctionalInterface
public interface MessageFilter {
    /** True if a message whose TAGS hash to {@code tagsCode} may match. */
    boolean isMatchedByConsumeQueue(long tagsCode);

    /**
     * Whether the read path must call {@link #isMatchedByCommitLog} for each message that passed
     * {@link #isMatchedByConsumeQueue}; false (the default) spares a tag filter the properties lookup.
     */
    default boolean needsProperties() {
        return false;
    }

    /**
     * True if the message whose record holds these properties matches. {@code properties} is a
     * read-only view of the record's UTF-8 properties bytes ({@code name \u0001 value \u0002} repeated,
     * see {@link MessageProperties}), valid only during the call. Called only when
     * {@link #needsProperties()} is true.
     */
    default boolean isMatchedByCommitLog(ByteBuffer properties) {
        return true;
    }

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
