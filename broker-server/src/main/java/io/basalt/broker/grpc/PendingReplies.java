package io.basalt.broker.grpc;

import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.remoting.netty.RemotingTimeoutException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Commands pushed to a gRPC client that wait for its reply on the Telemetry stream, by nonce: the client echoes the
 * nonce of a {@code print_thread_stack_trace_command} in its {@code thread_stack_trace}, that of a
 * {@code verify_message_command} in its {@code verify_message_result}. A reply that does not come in time fails the
 * waiting future with a {@link RemotingTimeoutException} and is ignored if it comes later. Thread-safe.
 */
final class PendingReplies {
    private final ConcurrentMap<String, CompletableFuture<TelemetryCommand>> waiting = new ConcurrentHashMap<>();

    /** A fresh nonce and the future its reply completes, failing after {@code timeoutMs}. */
    Pending expect(long timeoutMs) {
        String nonce = UUID.randomUUID().toString();
        CompletableFuture<TelemetryCommand> reply = new CompletableFuture<>();
        waiting.put(nonce, reply);
        CompletableFuture<TelemetryCommand> bounded = reply.orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
            .whenComplete((r, e) -> waiting.remove(nonce, reply));
        CompletableFuture<TelemetryCommand> answer = bounded.handle((r, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                ? e.getCause() : e;
            return CompletableFuture.<TelemetryCommand>failedFuture(cause instanceof TimeoutException
                ? new RemotingTimeoutException("the gRPC client did not reply within " + timeoutMs + " ms") : cause);
        }).thenCompose(f -> f);
        return new Pending(nonce, answer);
    }

    /** Completes the wait for {@code nonce}; false when nothing waits for it (unknown, answered or timed out). */
    boolean complete(String nonce, TelemetryCommand reply) {
        CompletableFuture<TelemetryCommand> f = nonce == null ? null : waiting.remove(nonce);
        return f != null && f.complete(reply);
    }

    /** Fails the wait for {@code nonce} (the command could not be written). */
    void fail(String nonce, Throwable error) {
        CompletableFuture<TelemetryCommand> f = waiting.remove(nonce);
        if (f != null) {
            f.completeExceptionally(error);
        }
    }

    /** Fails every wait: the client's connection closed. */
    void failAll(Throwable error) {
        for (String nonce : waiting.keySet()) {
            fail(nonce, error);
        }
    }

    int size() {
        return waiting.size();
    }

    /** @param reply the client's reply, or a failure (timeout, closed connection) */
    record Pending(String nonce, CompletableFuture<TelemetryCommand> reply) { }
}
