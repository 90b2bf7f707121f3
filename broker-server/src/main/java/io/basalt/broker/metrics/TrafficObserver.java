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

    /**
     * A send stored {@code messages} messages of {@code topic} (RocketMQ's messages_in): their type and the
     * CommitLog bytes their records took. Called after {@link #putDone} for stored puts only.
     */
    default void messagesIn(String topic, RocketMqMessageType type, int messages, long recordBytes) {
    }

    /** A FOUND pull returned {@code messages} messages of {@code topic}, {@code bytes} in all, to {@code group}. */
    default void messagesOut(String topic, String group, int messages, long bytes) {
    }

    /** A pull request was answered or held. */
    void pullServed();

    /** A pull returned {@code messages} messages. */
    void messagesPulled(int messages);
}
