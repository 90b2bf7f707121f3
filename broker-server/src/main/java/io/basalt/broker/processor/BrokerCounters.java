package io.basalt.broker.processor;

import java.util.concurrent.atomic.LongAdder;

import io.basalt.broker.metrics.TrafficObserver;
import io.basalt.store.PutMessageStatus;

/**
 * Messages stored by sends and returned by pulls since start (runtime info, rates), and the hand-off of
 * each put result and pull to the metrics ({@link TrafficObserver}). Any thread.
 */
public final class BrokerCounters {
    private final LongAdder messagesPut = new LongAdder();
    private final LongAdder messagesGot = new LongAdder();
    private final TrafficObserver observer;

    public BrokerCounters() {
        this(TrafficObserver.NONE);
    }

    public BrokerCounters(TrafficObserver observer) {
        this.observer = observer;
    }

    void putResult(String topic, PutMessageStatus status, int messages, long bodyBytes, long latencyNanos) {
        if (status.isStored()) {
            messagesPut.add(messages);
        }
        observer.putDone(topic, status, messages, bodyBytes, latencyNanos);
    }

    void pullRequest() {
        observer.pullServed();
    }

    void got(int messages) {
        messagesGot.add(messages);
        observer.messagesPulled(messages);
    }

    public long messagesPut() {
        return messagesPut.sum();
    }

    public long messagesGot() {
        return messagesGot.sum();
    }
}
