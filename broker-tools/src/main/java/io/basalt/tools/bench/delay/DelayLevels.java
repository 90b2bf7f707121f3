package io.basalt.tools.bench.delay;

import java.util.ArrayList;
import java.util.List;

/**
 * A broker's {@code messageDelayLevel} string, parsed the way RocketMQ parses it (tokens split on single
 * spaces, unit {@code s|m|h|d} as the last character), so that the benchmark knows when a message sent
 * with a level is due: {@code born time + delayMs(level)}. Immutable.
 */
public final class DelayLevels {
    /** RocketMQ 5.2.0's default {@code messageDelayLevel}. */
    public static final String ROCKETMQ_DEFAULT = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";

    private final long[] delayMs;

    private DelayLevels(long[] delayMs) {
        this.delayMs = delayMs;
    }

    public static DelayLevels parse(String levels) {
        List<Long> out = new ArrayList<>();
        for (String token : levels.trim().split(" ")) {
            if (token.length() < 2) {
                throw new IllegalArgumentException("bad delay level '" + token + "' in '" + levels + "'");
            }
            long unitMs = switch (token.charAt(token.length() - 1)) {
                case 's' -> 1_000L;
                case 'm' -> 60_000L;
                case 'h' -> 3_600_000L;
                case 'd' -> 86_400_000L;
                default -> throw new IllegalArgumentException("bad unit in delay level '" + token + "' in '" + levels + "'");
            };
            out.add(Long.parseLong(token.substring(0, token.length() - 1)) * unitMs);
        }
        return new DelayLevels(out.stream().mapToLong(Long::longValue).toArray());
    }

    public int maxLevel() {
        return delayMs.length;
    }

    /** The delay of level {@code level} (1-based); levels above the maximum are clamped, as the broker does. */
    public long delayMs(int level) {
        if (level < 1) {
            throw new IllegalArgumentException("delay level " + level + " is not a delay");
        }
        return delayMs[Math.min(level, delayMs.length) - 1];
    }
}
