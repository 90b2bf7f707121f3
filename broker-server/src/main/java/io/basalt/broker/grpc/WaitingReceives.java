package io.basalt.broker.grpc;

import apache.rocketmq.v2.ReceiveMessageResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The ReceiveMessage calls of each client whose pop is still waiting (long polling), so that a client that says it
 * terminates gets them answered at once: the SDKs wait for their calls in flight before they close their channel, and
 * a push consumer's shutdown would otherwise last until its long poll ends (up to 20 s). Thread-safe.
 */
final class WaitingReceives {
    /**
     * One ReceiveMessage call: its stream, answered once, by whoever comes first (the pop or the termination), and
     * its pop, cancelled when the termination answers first.
     */
    static final class Call {
        final StreamObserver<ReceiveMessageResponse> out;
        private boolean answered;
        private CompletableFuture<?> pop;

        Call(StreamObserver<ReceiveMessageResponse> out) {
            this.out = out;
        }

        /** True for the first caller only, who then writes the answer. */
        synchronized boolean claim() {
            if (answered) {
                return false;
            }
            answered = true;
            return true;
        }

        /** The call's pop; cancelled at once if the call was answered already. */
        void popping(CompletableFuture<?> future) {
            boolean cancel;
            synchronized (this) {
                pop = future;
                cancel = answered;
            }
            if (cancel) {
                future.cancel(false);
            }
        }

        /** Cancels the pop (it stops waiting and frees its long-polling place), if it started. */
        void cancelPop() {
            CompletableFuture<?> future;
            synchronized (this) {
                future = pop;
            }
            if (future != null) {
                future.cancel(false);
            }
        }
    }

    private final ConcurrentMap<String, Set<Call>> byClient = new ConcurrentHashMap<>();

    void add(String clientId, Call call) {
        byClient.computeIfAbsent(clientId, id -> ConcurrentHashMap.newKeySet()).add(call);
    }

    /** The call's pop answered. */
    void remove(String clientId, Call call) {
        byClient.computeIfPresent(clientId, (id, calls) -> {
            calls.remove(call);
            return calls.isEmpty() ? null : calls;
        });
    }

    /** Forgets and returns the client's waiting calls. */
    List<Call> removeAll(String clientId) {
        Set<Call> calls = byClient.remove(clientId);
        return calls == null ? List.of() : List.copyOf(calls);
    }
}
