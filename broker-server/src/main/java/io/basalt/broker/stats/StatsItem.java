package io.basalt.broker.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * One RocketMQ {@code StatsItem}: a running total ({@code value}, e.g. messages) and a count of the events that
 * added to it ({@code times}, e.g. requests), and RocketMQ's three windows over them ({@link SampleRing}): the
 * minute (a snapshot every {@link #SAMPLE_INTERVAL_MS}, 7 kept), the hour (every 10 minutes, 7 kept) and the day
 * (every hour, 25 kept).
 *
 * <p>Threads: {@link #add} and {@link #addValue} from any thread (one or two {@link LongAdder} increments, no
 * lock, no allocation); the {@code sample*} methods from one sampling thread; the windows from any thread.
 */
public final class StatsItem {
    /** RocketMQ samples its minute ring every 10 s ... */
    public static final long SAMPLE_INTERVAL_MS = 10_000;
    /** ... its hour ring every 10 minutes ... */
    public static final long HOUR_SAMPLE_INTERVAL_MS = 10 * 60_000;
    /** ... and its day ring every hour. */
    public static final long DAY_SAMPLE_INTERVAL_MS = 60 * 60_000;

    /** What a window says: RocketMQ's {@code StatsSnapshot}. */
    public record Window(long sum, double tps, double avgpt) {
        public static final Window EMPTY = new Window(0, 0, 0);
    }

    private final LongAdder value = new LongAdder();
    private final LongAdder times = new LongAdder();
    private final SampleRing minute = new SampleRing(SAMPLE_INTERVAL_MS, 7);
    private final SampleRing hour = new SampleRing(HOUR_SAMPLE_INTERVAL_MS, 7);
    private final SampleRing day = new SampleRing(DAY_SAMPLE_INTERVAL_MS, 25);

    /** One event that added {@code amount} (e.g. one pull that returned {@code amount} messages). */
    public void add(long amount) {
        value.add(amount);
        times.increment();
    }

    /** Adds to the value only, as RocketMQ's {@code BROKER_PUT_NUMS} does (its avgpt stays 0). */
    public void addValue(long amount) {
        value.add(amount);
    }

    void sampleMinute(long nowMs) {
        minute.sample(nowMs, value.sum(), times.sum());
    }

    void sampleHour(long nowMs) {
        hour.sample(nowMs, value.sum(), times.sum());
    }

    void sampleDay(long nowMs) {
        day.sample(nowMs, value.sum(), times.sum());
    }

    /** True when nothing was added for a whole day window: the item may be dropped. */
    boolean idleForADay() {
        return day.fullAndUnchanged();
    }

    public Window minute() {
        return minute.window();
    }

    public Window hour() {
        return hour.window();
    }

    public Window day() {
        return day.window();
    }
}
