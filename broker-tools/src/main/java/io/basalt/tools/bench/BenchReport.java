package io.basalt.tools.bench;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts operations and errors and records latencies (microseconds) from any thread; {@link #tick()}
 * prints the live line of the last interval, {@link #summary()} the totals. tick and summary are called
 * from the reporting thread only.
 */
final class BenchReport {
    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(60);

    private final PrintWriter out;
    private final String unit;
    private final Recorder recorder = new Recorder(HIGHEST_US, 3);
    private final Histogram total = new Histogram(HIGHEST_US, 3);
    private final LongAdder ok = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final long startNanos = System.nanoTime();
    private Histogram interval;
    private long lastTickNanos = startNanos;
    private long lastOk;
    private long lastErrors;
    private int seconds;

    BenchReport(PrintWriter out, String unit) {
        this.out = out;
        this.unit = unit;
    }

    void success(long latencyNanos) {
        recorder.recordValue(Math.min(HIGHEST_US, Math.max(0, latencyNanos / 1000)));
        ok.increment();
    }

    void error() {
        errors.increment();
    }

    long successes() {
        return ok.sum();
    }

    long errors() {
        return errors.sum();
    }

    void tick() {
        long now = System.nanoTime();
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        long o = ok.sum();
        long e = errors.sum();
        double secs = (now - lastTickNanos) / 1e9;
        seconds++;
        out.printf(Locale.ROOT, "[%4ds] %s TPS: %10.1f  errors: %d  p50: %.3f ms  p99: %.3f ms%n", seconds, unit,
            (o - lastOk) / secs, e - lastErrors, ms(interval.getValueAtPercentile(50)),
            ms(interval.getValueAtPercentile(99)));
        out.flush();
        lastTickNanos = now;
        lastOk = o;
        lastErrors = e;
    }

    void summary() {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        double secs = (System.nanoTime() - startNanos) / 1e9;
        long o = ok.sum();
        out.printf(Locale.ROOT, "Summary: %d %s ok, %d errors in %.1f s, average TPS %.1f%n", o, unit, errors.sum(), secs,
            o / secs);
        out.printf(Locale.ROOT, "Latency ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  mean %.3f%n",
            ms(total.getValueAtPercentile(50)), ms(total.getValueAtPercentile(90)), ms(total.getValueAtPercentile(99)),
            ms(total.getValueAtPercentile(99.9)), ms(total.getMaxValue()), total.getMean() / 1000.0);
        out.flush();
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }
}
