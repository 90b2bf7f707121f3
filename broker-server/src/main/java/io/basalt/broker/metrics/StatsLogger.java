package io.basalt.broker.metrics;

import java.util.Locale;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one line a minute of headline figures to the {@code basalt.stats} logger ({@code stats.log}),
 * in RocketMQ's "Stats In One Minute" manner, for people who tail logs. {@link #doWork()} runs on the
 * metrics thread; the line of an interval is {@link #line()}, testable without a logger.
 */
final class StatsLogger {
    private static final Logger STATS = LoggerFactory.getLogger("basalt.stats");

    private final BrokerMetrics metrics;
    private final String brokerName;
    private final LongSupplier clockMs;
    private final LatencyWindow latency;
    private long lastTimeMs;
    private long lastPut;
    private long lastGot;

    StatsLogger(BrokerMetrics metrics, String brokerName, LongSupplier clockMs) {
        this.metrics = metrics;
        this.brokerName = brokerName;
        this.clockMs = clockMs;
        this.latency = new LatencyWindow(metrics.putLatency());
        this.lastTimeMs = clockMs.getAsLong();
        this.lastPut = metrics.messagesPut();
        this.lastGot = metrics.messagesPulled();
    }

    int doWork() {
        STATS.info(line());
        return 1;
    }

    /** The figures since the previous line (or since construction). */
    String line() {
        long now = clockMs.getAsLong();
        double seconds = Math.max(1, now - lastTimeMs) / 1000.0;
        long put = metrics.messagesPut();
        long got = metrics.messagesPulled();
        LatencyWindow.Result p99 = latency.advance(0.99);
        long lag = ConsumerLag.total(metrics.consumerLag());
        String line = String.format(Locale.ROOT, "[BROKER_STATS] [%s] Stats In One Minute, PUT SUM: %d TPS: %.2f"
                + " P99: %.3f ms, GET SUM: %d TPS: %.2f, CONSUMER LAG: %d, DISK USED: %.1f%%, COMMITLOG MAX OFFSET: %d",
            brokerName, put - lastPut, (put - lastPut) / seconds, p99.quantileSeconds() * 1000, got - lastGot,
            (got - lastGot) / seconds, lag, metrics.diskUsedRatio() * 100,
            metrics.sources().store().getMaxPhyOffset());
        lastTimeMs = now;
        lastPut = put;
        lastGot = got;
        return line;
    }
}
