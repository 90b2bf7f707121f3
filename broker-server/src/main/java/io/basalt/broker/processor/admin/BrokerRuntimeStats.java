package io.basalt.broker.processor.admin;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.function.LongSupplier;

/**
 * The message totals and rates of RocketMQ's runtime info ({@code msgPutTotalTodayNow},
 * {@code putTps}, ...): samples two monotonic totals once a second and keeps ten minutes of samples
 * and the totals at the last two local midnights.
 *
 * <p>{@link #doWork()} is called by one scheduler thread; the readers take the monitor, so any thread
 * may read.
 */
public final class BrokerRuntimeStats {
    /** Seconds of history: RocketMQ reports rates over 10 s, 60 s and 600 s. */
    private static final int WINDOW_SECONDS = 600;

    private final LongSupplier messagesPut;
    private final LongSupplier messagesGot;
    private final LongSupplier clockMs;
    private final ZoneId zone;
    private final long bootTimestamp;

    private final long[] sampleTimes = new long[WINDOW_SECONDS + 1];
    private final long[] putSamples = new long[WINDOW_SECONDS + 1];
    private final long[] gotSamples = new long[WINDOW_SECONDS + 1];
    private int samples;
    private int next;

    private LocalDate today;
    private long putTodayMorning;
    private long putYesterdayMorning;
    private long gotTodayMorning;
    private long gotYesterdayMorning;

    /**
     * @param messagesPut messages stored since start, never decreasing
     * @param messagesGot messages handed to consumers since start, never decreasing
     */
    public BrokerRuntimeStats(LongSupplier messagesPut, LongSupplier messagesGot, LongSupplier clockMs, ZoneId zone) {
        this.messagesPut = messagesPut;
        this.messagesGot = messagesGot;
        this.clockMs = clockMs;
        this.zone = zone;
        this.bootTimestamp = clockMs.getAsLong();
    }

    /** Takes one sample; rolls the daily totals after local midnight. Returns 1 (one sample taken). */
    public synchronized int doWork() {
        long now = clockMs.getAsLong();
        long put = messagesPut.getAsLong();
        long got = messagesGot.getAsLong();
        LocalDate date = Instant.ofEpochMilli(now).atZone(zone).toLocalDate();
        if (today == null) {
            // like RocketMQ at start-up: both mornings are the totals found when the broker came up
            putTodayMorning = putYesterdayMorning = put;
            gotTodayMorning = gotYesterdayMorning = got;
            today = date;
        } else if (date.isAfter(today)) {
            putYesterdayMorning = putTodayMorning;
            gotYesterdayMorning = gotTodayMorning;
            putTodayMorning = put;
            gotTodayMorning = got;
            today = date;
        }
        sampleTimes[next] = now;
        putSamples[next] = put;
        gotSamples[next] = got;
        next = (next + 1) % sampleTimes.length;
        samples = Math.min(samples + 1, sampleTimes.length);
        return 1;
    }

    public long bootTimestamp() {
        return bootTimestamp;
    }

    public synchronized long putTodayNow() {
        return messagesPut.getAsLong();
    }

    public synchronized long putTodayMorning() {
        return today == null ? messagesPut.getAsLong() : putTodayMorning;
    }

    public synchronized long putYesterdayMorning() {
        return today == null ? messagesPut.getAsLong() : putYesterdayMorning;
    }

    public synchronized long gotTodayNow() {
        return messagesGot.getAsLong();
    }

    public synchronized long gotTodayMorning() {
        return today == null ? messagesGot.getAsLong() : gotTodayMorning;
    }

    public synchronized long gotYesterdayMorning() {
        return today == null ? messagesGot.getAsLong() : gotYesterdayMorning;
    }

    /** RocketMQ's {@code putTps}: messages per second over the last 10, 60 and 600 s, space separated. */
    public synchronized String putTps() {
        return rates(putSamples);
    }

    /** RocketMQ's {@code getTransferredTps}: the same for consumed messages. */
    public synchronized String gotTps() {
        return rates(gotSamples);
    }

    private String rates(long[] values) {
        return rate(values, 10) + " " + rate(values, 60) + " " + rate(values, WINDOW_SECONDS);
    }

    /** Rate between the newest sample and the one {@code seconds} back (or the oldest there is). */
    private String rate(long[] values, int seconds) {
        if (samples < 2) {
            return "0.00";
        }
        int newest = Math.floorMod(next - 1, sampleTimes.length);
        int back = Math.min(seconds, samples - 1);
        int oldest = Math.floorMod(newest - back, sampleTimes.length);
        long elapsedMs = sampleTimes[newest] - sampleTimes[oldest];
        if (elapsedMs <= 0) {
            return "0.00";
        }
        double perSecond = (values[newest] - values[oldest]) * 1000.0 / elapsedMs;
        return String.format(java.util.Locale.ROOT, "%.2f", perSecond);
    }
}
