package io.basalt.broker.processor;

import java.util.concurrent.atomic.LongAdder;

import io.basalt.broker.metrics.RocketMqMessageType;
import io.basalt.broker.metrics.TrafficObserver;
import io.basalt.broker.stats.BrokerStats;
import io.basalt.store.PutMessageStatus;

/**
 * Messages stored by sends and returned by pulls since start (runtime info, rates), the hand-off of
 * each put result and pull to the metrics ({@link TrafficObserver}), and of each stored send and FOUND pull to
 * RocketMQ's stats sets ({@link BrokerStats}: VIEW_BROKER_STATS_DATA, consume TPS). Any thread.
 */
public final class BrokerCounters {
    private final LongAdder messagesPut = new LongAdder();
    private final LongAdder messagesGot = new LongAdder();
    private final TrafficObserver observer;
    private final BrokerStats stats;

    public BrokerCounters() {
        this(TrafficObserver.NONE, new BrokerStats(System::currentTimeMillis, "", topic -> false));
    }

    public BrokerCounters(TrafficObserver observer, BrokerStats stats) {
        this.observer = observer;
        this.stats = stats;
    }

    /**
     * @param storedBytes the bytes the records took in the CommitLog (RocketMQ's {@code TOPIC_PUT_SIZE}), 0 when
     *                    nothing was stored
     */
    void putResult(String topic, PutMessageStatus status, int messages, long bodyBytes, long storedBytes,
        long latencyNanos) {
        if (status.isStored()) {
            messagesPut.add(messages);
            stats.stored(topic, messages, storedBytes);
        }
        observer.putDone(topic, status, messages, bodyBytes, latencyNanos);
    }

    /** A stored send, for RocketMQ's traffic metrics: its type and the CommitLog bytes its records took. */
    void stored(String topic, RocketMqMessageType type, int messages, long recordBytes) {
        observer.messagesIn(topic, type, messages, recordBytes);
    }

    void pullRequest() {
        observer.pullServed();
    }

    /** A FOUND pull of {@code topic} by {@code group} returned {@code messages} messages, {@code bytes} in all. */
    void got(String topic, String group, int messages, long bytes) {
        messagesGot.add(messages);
        observer.messagesPulled(messages);
        observer.messagesOut(topic, group, messages, bytes);
        stats.delivered(topic, group, messages, bytes);
    }

    public long messagesPut() {
        return messagesPut.sum();
    }

    public long messagesGot() {
        return messagesGot.sum();
    }
}
