package io.basalt.broker.grpc;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of the gRPC endpoint for the metrics: calls by RPC, and answers by RPC and application status code (a
 * refusal before the handler, e.g. ACL, under its reason). Thread-safe.
 */
public final class GrpcCounters {
    private final ConcurrentMap<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> results = new ConcurrentHashMap<>();

    void called(String rpc) {
        calls.computeIfAbsent(rpc, k -> new LongAdder()).increment();
    }

    void answered(String rpc, apache.rocketmq.v2.Code code) {
        results.computeIfAbsent(rpc + "/" + code.name(), k -> new LongAdder()).increment();
    }

    void refused(String rpc, String reason) {
        results.computeIfAbsent(rpc + "/" + reason, k -> new LongAdder()).increment();
    }

    /** RPC name to calls. */
    public Map<String, Long> calls() {
        Map<String, Long> out = new TreeMap<>();
        calls.forEach((rpc, n) -> out.put(rpc, n.sum()));
        return out;
    }

    /** "rpc/code" to answers. */
    public Map<String, Long> results() {
        Map<String, Long> out = new TreeMap<>();
        results.forEach((key, n) -> out.put(key, n.sum()));
        return out;
    }
}
