package io.basalt.broker.stats;

import java.util.ArrayDeque;

/**
 * One of RocketMQ's snapshot rings of a {@link StatsItem}: every {@code intervalMs} a snapshot of the item's two
 * totals, the last {@code capacity} kept; the first snapshot of a new ring is preceded by a synthetic zero dated
 * one interval back (so an item's first events count in its first window). Over the ring:
 * {@code sum = value_last − value_first}, {@code tps = sum × 1000 / (t_last − t_first)},
 * {@code avgpt = sum / (times_last − times_first)} (0 without events).
 *
 * <p>Threads: {@link #sample} from the sampling thread, {@link #window()} from any thread (both take the
 * ring's monitor, which the counting threads never touch).
 */
final class SampleRing {
    private record Snapshot(long timeMs, long value, long times) {
    }

    private final long intervalMs;
    private final int capacity;
    private final ArrayDeque<Snapshot> ring;

    SampleRing(long intervalMs, int capacity) {
        this.intervalMs = intervalMs;
        this.capacity = capacity;
        this.ring = new ArrayDeque<>(capacity + 1);
    }

    synchronized void sample(long nowMs, long value, long times) {
        if (ring.isEmpty()) {
            ring.addLast(new Snapshot(nowMs - intervalMs, 0, 0));
        }
        ring.addLast(new Snapshot(nowMs, value, times));
        if (ring.size() > capacity) {
            ring.removeFirst();
        }
    }

    synchronized StatsItem.Window window() {
        if (ring.isEmpty()) {
            return StatsItem.Window.EMPTY;
        }
        Snapshot first = ring.peekFirst();
        Snapshot last = ring.peekLast();
        long sum = last.value() - first.value();
        long elapsedMs = last.timeMs() - first.timeMs();
        long events = last.times() - first.times();
        double tps = elapsedMs > 0 ? sum * 1000.0 / elapsedMs : 0;
        return new StatsItem.Window(sum, tps, events > 0 ? (double) sum / events : 0);
    }

    /** True when the ring is full and nothing changed over it. */
    synchronized boolean fullAndUnchanged() {
        if (ring.size() < capacity) {
            return false;
        }
        Snapshot first = ring.peekFirst();
        Snapshot last = ring.peekLast();
        return first.value() == last.value() && first.times() == last.times();
    }
}
