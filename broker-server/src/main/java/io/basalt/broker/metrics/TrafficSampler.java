package io.basalt.broker.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Once a second ({@link #doWork()} on the metrics thread) turns the cumulative counters into rates:
 * put and get TPS and the put p99 of the last second, kept for the last {@link #CAPACITY} seconds (the
 * status page's charts), and each topic's put TPS over the last {@link #TOPIC_WINDOW} seconds. Readers on other threads get immutable snapshots.
 */
final class TrafficSampler {
    static final int CAPACITY = 300;
    static final int TOPIC_WINDOW = 10;

    /** One second of traffic. */
    record Sample(long timeMs, double putTps, double getTps, double putP99Ms) {
    }

    private final BrokerMetrics metrics;
    private final LongSupplier clockMs;
    private final LatencyWindow latency;
    private final ArrayList<Sample> samples = new ArrayList<>();
    /** Per-topic put totals of the last {@link #TOPIC_WINDOW} seconds, oldest first, with their times. */
    private final java.util.ArrayDeque<Map<String, Long>> topicWindow = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<Long> topicWindowTimes = new java.util.ArrayDeque<>();
    private long lastTimeMs;
    private long lastPut;
    private long lastGot;
    private volatile List<Sample> history = List.of();
    private volatile Map<String, Double> topicPutTps = Map.of();

    TrafficSampler(BrokerMetrics metrics, LongSupplier clockMs) {
        this.metrics = metrics;
        this.clockMs = clockMs;
        this.latency = new LatencyWindow(metrics.putLatency());
        this.lastTimeMs = clockMs.getAsLong();
        topicWindow.add(Map.of());
        topicWindowTimes.add(lastTimeMs);
    }

    int doWork() {
        long now = clockMs.getAsLong();
        double seconds = Math.max(1, now - lastTimeMs) / 1000.0;
        long put = metrics.messagesPut();
        long got = metrics.messagesPulled();
        LatencyWindow.Result p99 = latency.advance(0.99);
        Map<String, Long> topicPuts = metrics.messagesPutByTopic();
        Map<String, Long> oldest = topicWindow.peekFirst();
        double windowSeconds = Math.max(1, now - topicWindowTimes.peekFirst()) / 1000.0;
        Map<String, Double> tps = new HashMap<>();
        topicPuts.forEach((topic, count) -> tps.put(topic, (count - oldest.getOrDefault(topic, 0L)) / windowSeconds));
        topicWindow.addLast(topicPuts);
        topicWindowTimes.addLast(now);
        if (topicWindow.size() > TOPIC_WINDOW) {
            topicWindow.removeFirst();
            topicWindowTimes.removeFirst();
        }
        samples.add(new Sample(now, (put - lastPut) / seconds, (got - lastGot) / seconds, p99.quantileSeconds() * 1000));
        if (samples.size() > CAPACITY) {
            samples.remove(0);
        }
        lastTimeMs = now;
        lastPut = put;
        lastGot = got;
        history = List.copyOf(samples);
        topicPutTps = Collections.unmodifiableMap(tps);
        return 1;
    }

    List<Sample> history() {
        return history;
    }

    double topicPutTps(String topic) {
        return topicPutTps.getOrDefault(topic, 0.0);
    }
}
