package io.basalt.tools.bench.delay;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongConsumer;

import org.HdrHistogram.Histogram;

/**
 * Lateness of delayed and timer messages, from the consumer's point of view. For each delivery it takes the
 * message's due time (from its {@link ProbeBody}), the time the broker stored the due message in its real topic
 * (the delivered message's store timestamp) and the time the consumer received it, and keeps:
 * <ul>
 *   <li>broker lateness = store time − due time: how late the broker put the message back (the wheel or the
 *       delay-level service alone, whatever the consumer's speed);</li>
 *   <li>consumer lateness = receive time − due time: what an application sees (adds pull and consume time);</li>
 *   <li>early deliveries (either lateness below zero), duplicates by sequence number, the unique count;</li>
 *   <li>deliveries per second of broker store time, for the delivery rate of one level or one slot.</li>
 * </ul>
 * Messages never received can be counted as censored: their lateness is at least "now − due", recorded as
 * such, so percentiles over a run that ended early are lower bounds rather than silently optimistic.
 * {@link #record} is called from consumer threads; {@link #report} and {@link #censorMissing} from the thread
 * that runs the case. All times are epoch milliseconds on the same machine's clock.
 */
public final class Lateness {
    private final long expected;
    private final BitSet seen = new BitSet();
    private final Histogram brokerMs = new Histogram(3);
    private final Histogram consumerMs = new Histogram(3);
    private final Map<Long, Integer> storedPerSecond = new HashMap<>();
    private long unique;
    private long unsent;
    private long duplicates;
    private long brokerEarly;
    private long consumerEarly;
    private long censored;
    private long firstStoreMs = Long.MAX_VALUE;
    private long lastStoreMs = Long.MIN_VALUE;
    private long lastReceiveMs = Long.MIN_VALUE;
    private long maxDueMs = Long.MIN_VALUE;

    /** @param expected how many distinct sequence numbers (0 .. expected − 1) the run sends */
    public Lateness(long expected) {
        if (expected < 0 || expected > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("expected count out of range: " + expected);
        }
        this.expected = expected;
    }

    /** One delivery. A sequence number seen before counts as a duplicate and adds nothing else. */
    public synchronized void record(long sequence, long dueMs, long storeMs, long receiveMs) {
        if (sequence < 0 || sequence >= expected) {
            throw new IllegalArgumentException("sequence " + sequence + " outside 0.." + (expected - 1));
        }
        if (seen.get((int) sequence)) {
            duplicates++;
            return;
        }
        seen.set((int) sequence);
        unique++;
        long broker = storeMs - dueMs;
        long consumer = receiveMs - dueMs;
        if (broker < 0) {
            brokerEarly++;
        }
        if (consumer < 0) {
            consumerEarly++;
        }
        brokerMs.recordValue(Math.max(0, broker));
        consumerMs.recordValue(Math.max(0, consumer));
        firstStoreMs = Math.min(firstStoreMs, storeMs);
        lastStoreMs = Math.max(lastStoreMs, storeMs);
        lastReceiveMs = Math.max(lastReceiveMs, receiveMs);
        maxDueMs = Math.max(maxDueMs, dueMs);
        storedPerSecond.merge(Math.floorDiv(storeMs, 1000L), 1, Integer::sum);
    }

    /**
     * A message whose send failed (after the client's retries): it is not expected, counted apart and never
     * missing. A later delivery of it (the broker stored it after all) counts as a duplicate.
     */
    public synchronized void markUnsent(long sequence) {
        if (sequence < 0 || sequence >= expected) {
            throw new IllegalArgumentException("sequence " + sequence + " outside 0.." + (expected - 1));
        }
        if (!seen.get((int) sequence)) {
            seen.set((int) sequence);
            unsent++;
        }
    }

    public synchronized long unique() {
        return unique;
    }

    public synchronized boolean complete() {
        return unique + unsent == expected;
    }

    public synchronized long missing() {
        return expected - unique - unsent;
    }

    /** Calls {@code action} with every sequence number not received yet, in ascending order. */
    public synchronized void forEachMissing(LongConsumer action) {
        for (int s = seen.nextClearBit(0); s < expected; s = seen.nextClearBit(s + 1)) {
            action.accept(s);
        }
    }

    /**
     * Counts the messages still missing as delivered "now" for the consumer-lateness histogram (a lower bound of
     * their lateness), so a run that stopped waiting does not report only the lucky ones. Call once, at the end.
     *
     * @param dueOf the due time of a sequence number, as the sender computed it
     */
    public synchronized void censorMissing(long nowMs, java.util.function.LongUnaryOperator dueOf) {
        forEachMissing(s -> {
            consumerMs.recordValue(Math.max(0, nowMs - dueOf.applyAsLong(s)));
            censored++;
        });
    }

    public synchronized Report report() {
        int peak = storedPerSecond.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        double spanS = unique > 1 ? Math.max(1, lastStoreMs - firstStoreMs) / 1000.0 : 0;
        return new Report(expected, unique, duplicates, expected - unique - unsent, unsent, censored, brokerEarly, consumerEarly,
            Percentiles.of(brokerMs), Percentiles.of(consumerMs),
            unique == 0 ? -1 : lastStoreMs - maxDueMs, unique == 0 ? -1 : lastReceiveMs - maxDueMs,
            spanS == 0 ? 0 : unique / spanS, peak);
    }

    /** min/p50/p99/p99.9/max of one histogram, in milliseconds. */
    public record Percentiles(long min, long p50, long p99, long p999, long max) {
        static Percentiles of(Histogram h) {
            if (h.getTotalCount() == 0) {
                return new Percentiles(-1, -1, -1, -1, -1);
            }
            return new Percentiles(h.getMinValue(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), h.getMaxValue());
        }
    }

    /**
     * The figures of one run. {@code lastStoredAfterDueMs}/{@code lastReceivedAfterDueMs}: time from the latest due
     * time to the last put-back / last receive (for a burst due in one second: how long until all were delivered).
     * {@code storeRatePerS}: unique deliveries over the span of their store times; {@code peakStoredPerS}: the most
     * put back in one wall-clock second. {@code censored} of the consumer percentiles are lower bounds.
     */
    public record Report(long expected, long received, long duplicates, long missing, long unsent, long censored, long brokerEarly,
                         long consumerEarly, Percentiles broker, Percentiles consumer, long lastStoredAfterDueMs,
                         long lastReceivedAfterDueMs, double storeRatePerS, int peakStoredPerS) {
        /** One line of {@code key=value} figures, {@code prefix} first (e.g. the broker's name and the case). */
        public String line(String prefix) {
            return String.format(Locale.ROOT,
                "%s expected=%d received=%d missing=%d unsent=%d dup=%d early_broker=%d early_consumer=%d"
                    + " broker_late_ms_min=%d p50=%d p99=%d p999=%d max=%d"
                    + " consumer_late_ms_min=%d p50=%d p99=%d p999=%d max=%d censored=%d"
                    + " last_stored_after_due_ms=%d last_received_after_due_ms=%d store_rate_per_s=%.0f peak_stored_per_s=%d",
                prefix, expected, received, missing, unsent, duplicates, brokerEarly, consumerEarly,
                broker.min, broker.p50, broker.p99, broker.p999, broker.max,
                consumer.min, consumer.p50, consumer.p99, consumer.p999, consumer.max, censored,
                lastStoredAfterDueMs, lastReceivedAfterDueMs, storeRatePerS, peakStoredPerS);
        }
    }
}
