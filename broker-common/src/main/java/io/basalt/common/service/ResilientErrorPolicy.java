package io.basalt.common.service;

import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ErrorPolicy#resilient()}: an error is logged, rate-limited, and the service goes on. A
 * service that fails every round (a missing directory, say) writes one line per
 * {@link #LOG_INTERVAL_MS}, not one per back-off step. State confined to the service thread.
 */
final class ResilientErrorPolicy implements ErrorPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceThread.class);
    static final long LOG_INTERVAL_MS = 10_000;

    private final LongSupplier clockMs;
    private long lastLoggedMs;
    private long unlogged;
    private boolean loggedOnce;

    ResilientErrorPolicy(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    @Override
    public void onError(ServiceThread service, Throwable error) {
        long now = clockMs.getAsLong();
        if (!loggedOnce) {
            loggedOnce = true;
            lastLoggedMs = now;
            LOG.error("{} failed a round and goes on after a back-off (errors so far: {})", service.name(),
                service.errorCount(), error);
            return;
        }
        if (now - lastLoggedMs < LOG_INTERVAL_MS) {
            unlogged++;
            return;
        }
        LOG.error("{} failed a round again and goes on (errors so far: {}, {} not logged since the last line): {}",
            service.name(), service.errorCount(), unlogged, error.toString());
        lastLoggedMs = now;
        unlogged = 0;
    }
}
