package io.basalt.broker.metrics;

import io.basalt.common.test.LifetimeThreads;
import io.prometheus.metrics.core.util.Scheduler;

/**
 * The Prometheus client's static scheduler (one unnamed daemon thread, {@code Thread-N}) starts the
 * first time a histogram schedules its reset and lives as long as the JVM; start it up front.
 */
public final class PrometheusLifetimeThreads implements LifetimeThreads {
    @Override
    public void start() throws InterruptedException {
        Scheduler.awaitInitialization();
    }
}
