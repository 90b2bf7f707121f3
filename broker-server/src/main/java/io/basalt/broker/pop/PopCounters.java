package io.basalt.broker.pop;

import java.util.concurrent.atomic.AtomicLong;

/** What POP did since start, for the metrics: messages popped, acked, revived (re-delivered) and dead-lettered. */
public final class PopCounters {
    private final AtomicLong popped = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong revived = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();

    void countPopped(int n) {
        popped.addAndGet(n);
    }

    void countAcked(int n) {
        acked.addAndGet(n);
    }

    void countRevived() {
        revived.incrementAndGet();
    }

    void countDeadLettered() {
        deadLettered.incrementAndGet();
    }

    public long popped() {
        return popped.get();
    }

    public long acked() {
        return acked.get();
    }

    /** Messages re-put to a POP retry topic because their invisible time passed without an ACK. */
    public long revived() {
        return revived.get();
    }

    /** Messages put to {@code %DLQ%<group>} instead, their group's retryMaxTimes used up. */
    public long deadLettered() {
        return deadLettered.get();
    }
}
