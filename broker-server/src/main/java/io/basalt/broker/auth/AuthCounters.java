package io.basalt.broker.auth;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of the access checks, for the metrics: requests let in (signed), let in by a white address without a
 * signature (so an operator sees how much traffic skips signatures), refused by reason and ACL version, and reloads of
 * the ACL files that failed. Thread-safe, lock-free on the request path.
 */
public final class AuthCounters {
    private final LongAdder allowed = new LongAdder();
    private final LongAdder whiteAddress = new LongAdder();
    private final ConcurrentMap<String, LongAdder> denied = new ConcurrentHashMap<>();
    private final LongAdder reloads = new LongAdder();
    private final LongAdder failedReloads = new LongAdder();

    void record(String acl, AuthDecision decision) {
        switch (decision.outcome()) {
            case ALLOWED -> allowed.increment();
            case WHITE_ADDRESS -> whiteAddress.increment();
            case DENIED -> denied.computeIfAbsent(acl + "/" + decision.reason().label(), k -> new LongAdder()).increment();
        }
    }

    public void reloaded() {
        reloads.increment();
    }

    public void reloadFailed() {
        failedReloads.increment();
    }

    public long allowed() {
        return allowed.sum();
    }

    public long whiteAddress() {
        return whiteAddress.sum();
    }

    /** Refusals by "acl/reason" ({@code v1/bad_signature}, {@code v2/no_permission}, ...). */
    public Map<String, Long> denied() {
        Map<String, Long> out = new TreeMap<>();
        denied.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public long reloads() {
        return reloads.sum();
    }

    public long failedReloads() {
        return failedReloads.sum();
    }
}
