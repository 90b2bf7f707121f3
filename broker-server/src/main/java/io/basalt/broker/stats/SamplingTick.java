package io.basalt.broker.stats;

/**
 * One round of sampling: every round samples the minute rings; every 60th (10 minutes) also the hour rings and
 * every 360th (an hour) also the day rings, the first round all three, as RocketMQ's three fixed-rate tasks do.
 */
record SamplingTick(long nowMs, boolean hour, boolean day) {
    static final int ROUNDS_PER_HOUR_SAMPLE = (int) (StatsItem.HOUR_SAMPLE_INTERVAL_MS / StatsItem.SAMPLE_INTERVAL_MS);
    static final int ROUNDS_PER_DAY_SAMPLE = (int) (StatsItem.DAY_SAMPLE_INTERVAL_MS / StatsItem.SAMPLE_INTERVAL_MS);

    /** The tick of round {@code round} (0 first) at {@code nowMs}. */
    static SamplingTick of(long round, long nowMs) {
        return new SamplingTick(nowMs, round % ROUNDS_PER_HOUR_SAMPLE == 0, round % ROUNDS_PER_DAY_SAMPLE == 0);
    }

    void apply(StatsItem item) {
        item.sampleMinute(nowMs);
        if (hour) {
            item.sampleHour(nowMs);
        }
        if (day) {
            item.sampleDay(nowMs);
        }
    }
}
