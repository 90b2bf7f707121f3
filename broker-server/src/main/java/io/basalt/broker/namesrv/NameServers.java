package io.basalt.broker.namesrv;

import java.util.List;

/**
 * The NameServers of {@code namesrvAddr} and how the broker talks to them.
 *
 * @param addresses        "host:port" of every NameServer; empty when the broker is its own name server
 * @param registerPeriodMs how often the broker registers again ({@code registerNameServerPeriod})
 * @param timeoutMs        how long one NameServer may take to answer one request
 */
public record NameServers(List<String> addresses, long registerPeriodMs, long timeoutMs) {
    public NameServers {
        addresses = List.copyOf(addresses);
        if (registerPeriodMs <= 0 || timeoutMs <= 0) {
            throw new IllegalArgumentException("registerPeriodMs and timeoutMs must be positive: " + registerPeriodMs
                + ", " + timeoutMs);
        }
    }

    public boolean isEmpty() {
        return addresses.isEmpty();
    }
}
