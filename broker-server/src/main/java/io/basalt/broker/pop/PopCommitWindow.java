package io.basalt.broker.pop;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.basalt.store.MessageStore;

/**
 * The pops between "CK about to be stored" and "offset committed past its messages". Each remembers the ends of
 * the queues its CK can land in (rmq_sys_wheel_timer queue 0 until due, else its revive queue) as they were before
 * the write, so its CK is at or past them. {@link #scanStart()}, taken just before consumerOffset.json copies the
 * offsets, is the lowest of those ends and the current ones: every CK whose commit the copy may miss is at or past
 * it. Exact, whatever the timing: nothing blocks and nothing is estimated. Thread-safe.
 */
final class PopCommitWindow {
    private final MessageStore store;
    private final String reviveTopic;
    private final int reviveQueueNum;
    private final Set<Ticket> open = ConcurrentHashMap.newKeySet();

    PopCommitWindow(MessageStore store, String reviveTopic, int reviveQueueNum) {
        this.store = store;
        this.reviveTopic = reviveTopic;
        this.reviveQueueNum = reviveQueueNum;
    }

    /** One pop's CK in flight; identity-compared. */
    static final class Ticket {
        final long wheelEnd;
        final int reviveQid;
        final long reviveEnd;

        private Ticket(long wheelEnd, int reviveQid, long reviveEnd) {
            this.wheelEnd = wheelEnd;
            this.reviveQid = reviveQid;
            this.reviveEnd = reviveEnd;
        }
    }

    /** Before the CK is written: the queue ends are read first, so the CK lands at or past them. */
    Ticket begin(int reviveQid) {
        Ticket t = new Ticket(store.getMaxOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0), reviveQid,
            store.getMaxOffsetInQueue(reviveTopic, reviveQid));
        open.add(t);
        return t;
    }

    /** After the offset was committed (or the CK was not stored). */
    void end(Ticket t) {
        open.remove(t);
    }

    /**
     * The queue ends now, lowered to those of the pops still open. A pop not seen here either ended before (its
     * commit is in the copy taken afterwards) or began after the ends were read (its CK is appended past them).
     */
    CheckPointScanStart scanStart() {
        long wheel = store.getMaxOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0);
        Map<Integer, Long> revive = new HashMap<>();
        for (int q = 0; q < reviveQueueNum; q++) {
            revive.put(q, store.getMaxOffsetInQueue(reviveTopic, q));
        }
        for (Ticket t : open) {
            wheel = Math.min(wheel, t.wheelEnd);
            revive.merge(t.reviveQid, t.reviveEnd, Math::min);
        }
        return new CheckPointScanStart(wheel, revive);
    }
}
