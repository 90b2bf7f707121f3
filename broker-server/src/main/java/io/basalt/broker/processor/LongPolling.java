package io.basalt.broker.processor;

import java.util.Objects;

import io.basalt.broker.longpolling.PullRequestHoldService;

/**
 * Where a pull that finds nothing new waits, and for how long at most.
 *
 * @param maxSuspendMs upper bound on a held pull, whatever the client asks (keeps it below the clients' timeouts)
 */
public record LongPolling(PullRequestHoldService hold, long maxSuspendMs) {
    public LongPolling {
        Objects.requireNonNull(hold, "hold");
        if (maxSuspendMs < 0) {
            throw new IllegalArgumentException("maxSuspendMs must not be negative: " + maxSuspendMs);
        }
    }
}
