package io.basalt.broker.stats;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;

/**
 * One RocketMQ {@code StatsItem}: a running total ({@code value}, e.g. messages) and a count of the events that
 * added to it ({@code times}, e.g. pulls), and RocketMQ's minute window over them: a snapshot of both every
 * {@link #SAMPLE_INTERVAL_MS} ms, the last {@link #MINUTE_SAMPLES} kept, the first one a synthetic zero dated one
 * interval back. Over the window: {@code sum = value_last − value_first}, {@code tps = sum × 1000 / (t_last −
 * t_first)}, {@code avgpt = sum / (times_last − times_first)} (0 without events).
 *
 * <p>Threads: {@link #add} from any thread (two {@link LongAdder} increments, no lock, no allocation);
 * {@link #sample} from one sampling thread at a time; {@link #minute()} from any thread (the window last sampled).
 */
public final class StatsItem {
    /** RocketMQ samples its minute ring every 10 s ... */
    public static final long SAMPLE_INTERVAL_MS = 10_000;
    /** ... and keeps 7 snapshots: 6 intervals, one minute. */
    static final int MINUTE_SAMPLES = 7;

    /** What the window says: RocketMQ's {@code StatsSnapshot}. */
    public record Window(long sum, double tps, double avgpt) {
        public static final Window EMPTY = new Window(0, 0, 0);
    }

    private record Snapshot(long timeMs, long value, long times) {
    }

    private final LongAdder value = new LongAdder();
    private final LongAdder times = new LongAdder();
    /** Written by the sampling thread only. */
    private final ArrayDeque<Snapshot> ring = new ArrayDeque<>(MINUTE_SAMPLES + 1);
    private volatile Window minute = Window.EMPTY;

    /** One event that added {@code amount} (e.g. one pull that returned {@code amount} messages). */
    public void add(long amount) {
        value.add(amount);
        times.increment();
    }

    /** Takes the snapshot of {@code nowMs} and recomputes the window; called every {@link #SAMPLE_INTERVAL_MS}. */
    void sample(long nowMs) {
        if (ring.isEmpty()) {
            ring.addLast(new Snapshot(nowMs - SAMPLE_INTERVAL_MS, 0, 0));
        }
        ring.addLast(new Snapshot(nowMs, value.sum(), times.sum()));
        if (ring.size() > MINUTE_SAMPLES) {
            ring.removeFirst();
        }
        Snapshot first = ring.peekFirst();
        Snapshot last = ring.peekLast();
        long sum = last.value() - first.value();
        long elapsedMs = last.timeMs() - first.timeMs();
        long events = last.times() - first.times();
        double tps = elapsedMs > 0 ? sum * 1000.0 / elapsedMs : 0;
        minute = new Window(sum, tps, events > 0 ? (double) sum / events : 0);
    }

    /** True when the window is full and nothing was added during it: the item may be dropped. */
    boolean idleForAMinute() {
        return ring.size() == MINUTE_SAMPLES && ring.peekFirst().value() == ring.peekLast().value()
            && ring.peekFirst().times() == ring.peekLast().times();
    }

    /** The last minute, as of the last {@link #sample}. */
    public Window minute() {
        return minute;
    }
}
