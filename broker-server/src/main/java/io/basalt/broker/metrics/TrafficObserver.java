package io.basalt.broker.metrics;

import io.basalt.store.PutMessageStatus;

/**
 * What the request processors report of each put and pull, on their own threads: implementations must
 * be cheap, thread-safe and allocation-free on the common path.
 */
public interface TrafficObserver {
    TrafficObserver NONE = new TrafficObserver() {
        @Override
        public void putDone(String topic, PutMessageStatus status, int messages, long bodyBytes, long latencyNanos) {
        }

        @Override
        public void pullServed() {
        }

        @Override
        public void messagesPulled(int messages) {
        }
    };

    /**
     * A put (one message or one batch) finished in the store.
     *
     * @param bodyBytes    the bodies' total size
     * @param latencyNanos from the send request's processing start to the store's answer
     */
    void putDone(String topic, PutMessageStatus status, int messages, long bodyBytes, long latencyNanos);

    /** A pull request was answered or held. */
    void pullServed();

    /** A pull returned {@code messages} messages. */
    void messagesPulled(int messages);
}
