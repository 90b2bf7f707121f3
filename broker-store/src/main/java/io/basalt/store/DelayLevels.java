package io.basalt.store;

import java.util.Arrays;

/**
 * RocketMQ's delay levels ({@code messageDelayLevel}): level {@code i} (1-based) waits the {@code i}-th
 * duration of the list, in queue {@code i - 1} of {@link #SCHEDULE_TOPIC}. Parsed as RocketMQ's
 * {@code parseDelayLevel} does: the text is split on single spaces, each token is a number followed
 * by its unit ({@code s}, {@code m}, {@code h}, {@code d}). Unlike RocketMQ, which fails start-up with a
 * bare exception, a malformed token is named in the error. Immutable; any thread.
 */
public final class DelayLevels {

    /** The system topic delayed messages wait in, one queue per level. */
    public static final String SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";
    /** RocketMQ 5.2.0's {@code MessageStoreConfig.messageDelayLevel}. */
    public static final String DEFAULT = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";
    /** What the dispatcher adds to the store time for a level the table does not have (RocketMQ's fallback). */
    static final long UNKNOWN_LEVEL_DELAY_MS = 1000;

    private final String text;
    private final long[] delayMillis;

    private DelayLevels(String text, long[] delayMillis) {
        this.text = text;
        this.delayMillis = delayMillis;
    }

    /**
     * Reads a {@code messageDelayLevel} value.
     *
     * @throws IllegalArgumentException naming the first malformed token (empty, e.g. from a double
     *                                  space; unknown unit; not a non-negative number)
     */
    public static DelayLevels parse(String text) {
        String[] tokens = text.split(" ", -1);
        long[] millis = new long[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            millis[i] = parseToken(tokens[i], i + 1);
        }
        return new DelayLevels(text, millis);
    }

    private static long parseToken(String token, int level) {
        if (token.length() < 2) {
            throw new IllegalArgumentException("level " + level + " token '" + token + "' is not a number followed by s, m, h or d"
                + (token.isEmpty() ? " (levels are separated by exactly one space)" : ""));
        }
        long unit = switch (token.charAt(token.length() - 1)) {
            case 's' -> 1000L;
            case 'm' -> 60_000L;
            case 'h' -> 3_600_000L;
            case 'd' -> 86_400_000L;
            default -> throw new IllegalArgumentException("level " + level + " token '" + token
                + "' has no unit s, m, h or d");
        };
        long number;
        try {
            number = Long.parseLong(token.substring(0, token.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("level " + level + " token '" + token + "' is not a number followed by s, m, h or d");
        }
        if (number < 0 || number > Long.MAX_VALUE / unit) {
            throw new IllegalArgumentException("level " + level + " token '" + token + "' is out of range");
        }
        return number * unit;
    }

    /** The default table, {@link #DEFAULT}. */
    public static DelayLevels defaults() {
        return parse(DEFAULT);
    }

    /** Number of levels (RocketMQ's maxDelayLevel). */
    public int maxLevel() {
        return delayMillis.length;
    }

    /** The delay of {@code level} (1..{@link #maxLevel()}), ms. */
    public long delayMillis(int level) {
        if (level < 1 || level > delayMillis.length) {
            throw new IllegalArgumentException("no delay level " + level + " (1.." + delayMillis.length + ")");
        }
        return delayMillis[level - 1];
    }

    /** {@code level} clamped to {@link #maxLevel()} (the send-time and dispatch rule for a level above it). */
    public int clamp(int level) {
        return Math.min(level, delayMillis.length);
    }

    /**
     * A {@code DELAY} property's value as RocketMQ's {@code getDelayTimeLevel} reads it: the number, or 0 when
     * absent or not a number.
     */
    public static int levelOf(String delayProperty) {
        if (delayProperty == null) {
            return 0;
        }
        try {
            return Integer.parseInt(delayProperty);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Queue of {@link #SCHEDULE_TOPIC} a level's messages wait in. */
    public static int queueId(int level) {
        return level - 1;
    }

    /** Level of a {@link #SCHEDULE_TOPIC} queue. */
    public static int level(int queueId) {
        return queueId + 1;
    }

    /**
     * The deliver time the dispatcher writes as the consume-queue tagsCode of a SCHEDULE record:
     * its store time plus the delay of {@code level} clamped to the maximum; a level below 1 gives
     * store time + 1 s, as RocketMQ's {@code computeDeliverTimestamp}.
     */
    public long deliverTimestamp(int level, long storeTimestamp) {
        int clamped = clamp(level);
        return clamped >= 1 ? storeTimestamp + delayMillis[clamped - 1] : storeTimestamp + UNKNOWN_LEVEL_DELAY_MS;
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DelayLevels d && Arrays.equals(delayMillis, d.delayMillis);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(delayMillis);
    }
}
