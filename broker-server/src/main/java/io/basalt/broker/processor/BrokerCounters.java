package io.basalt.broker.processor;

import java.util.concurrent.atomic.LongAdder;

/** Messages stored by sends and returned by pulls since start (runtime info, rates). Any thread. */
public final class BrokerCounters {
    private final LongAdder messagesPut = new LongAdder();
    private final LongAdder messagesGot = new LongAdder();

    void put(int messages) {
        messagesPut.add(messages);
    }

    void got(int messages) {
        messagesGot.add(messages);
    }

    public long messagesPut() {
        return messagesPut.sum();
    }

    public long messagesGot() {
        return messagesGot.sum();
    }
}
