package io.basalt.broker.processor;

import java.util.concurrent.atomic.LongAdder;

import io.basalt.broker.metrics.TrafficObserver;
import io.basalt.broker.stats.GroupGetStats;
import io.basalt.store.PutMessageStatus;

/**
 * Messages stored by sends and returned by pulls since start (runtime info, rates), the hand-off of
 * each put result and pull to the metrics ({@link TrafficObserver}), and of each FOUND pull to the
 * per-group stats ({@link GroupGetStats}, consume TPS). Any thread.
 */
public final class BrokerCounters {
    private final LongAdder messagesPut = new LongAdder();
    private final LongAdder messagesGot = new LongAdder();
    private final TrafficObserver observer;
    private final GroupGetStats groupGets;

    public BrokerCounters() {
        this(TrafficObserver.NONE, new GroupGetStats(System::currentTimeMillis));
    }

    public BrokerCounters(TrafficObserver observer, GroupGetStats groupGets) {
        this.observer = observer;
        this.groupGets = groupGets;
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

    /** A FOUND pull of {@code topic} by {@code group} returned {@code messages} messages. */
    void got(String topic, String group, int messages) {
        messagesGot.add(messages);
        observer.messagesPulled(messages);
        groupGets.delivered(topic, group, messages);
    }

    public long messagesPut() {
        return messagesPut.sum();
    }

    public long messagesGot() {
        return messagesGot.sum();
    }
}
