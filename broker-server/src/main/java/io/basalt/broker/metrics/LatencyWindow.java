package io.basalt.broker.metrics;

import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;

/**
 * Quantiles of a classic histogram over the interval since the previous call: the difference of two
 * bucket snapshots, interpolated linearly inside the bucket that holds the quantile. One caller thread
 * (the sampler, or the stats logger, each with its own window).
 */
final class LatencyWindow {
    private final Histogram histogram;
    private long[] previous;

    LatencyWindow(Histogram histogram) {
        this.histogram = histogram;
    }

    /** Observations and the {@code q} quantile (seconds; 0 when nothing was observed) since the last call. */
    Result advance(double q) {
        ClassicHistogramBuckets buckets = histogram.collect().getDataPoints().get(0).getClassicBuckets();
        int n = buckets.size();
        long[] counts = new long[n];
        for (int i = 0; i < n; i++) {
            counts[i] = buckets.getCount(i);
        }
        long[] delta = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            delta[i] = counts[i] - (previous == null ? 0 : previous[i]);
            total += delta[i];
        }
        previous = counts;
        if (total == 0) {
            return new Result(0, 0);
        }
        double rank = q * total;
        long seen = 0;
        for (int i = 0; i < n; i++) {
            if (seen + delta[i] >= rank && delta[i] > 0) {
                double lower = i == 0 ? 0 : buckets.getUpperBound(i - 1);
                double upper = buckets.getUpperBound(i);
                if (Double.isInfinite(upper)) {
                    return new Result(total, lower);
                }
                return new Result(total, lower + (upper - lower) * (rank - seen) / delta[i]);
            }
            seen += delta[i];
        }
        return new Result(total, buckets.getUpperBound(n - 2));
    }

    record Result(long count, double quantileSeconds) {
    }
}
