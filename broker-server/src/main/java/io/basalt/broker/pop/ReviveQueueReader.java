package io.basalt.broker.pop;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One revive queue's reader, driven by one thread: reads every record (CK, ACK, batch ACK) in order, keeps each CK
 * with the bits of its acknowledged messages, and once a CK's ACKs can no longer arrive re-delivers its un-acked
 * messages through the {@link MessageReviver}.
 *
 * <p>When ACKs can no longer arrive: an ACK is a timer message due at the CK's revive time (popTime +
 * invisibleTime). A CK is revived only when the timer wheel has delivered everything due up to
 * {@value #ACK_WAIT_MS} ms past that time <em>and</em> the queue has been read to its end after that was seen, so
 * an ACK stored before the deadline always cancels its message.
 *
 * <p>Progress ({@code CID_RMQ_SYS_REVIVE_GROUP}'s offset, as RocketMQ commits it: the last record done) covers every
 * record read up to the first CK not yet finished; after a restart reading resumes there, so a CK is never skipped.
 * A CK read again that way (finished after that first one, or before a crash lost the progress) may already have been
 * revived: for the CKs stored before this reader started, the target topic is first searched for the copy re-put for
 * that CK ({@link MessageReviver#REVIVED_FOR_CK}), so a message is not re-delivered twice. Not thread-safe: one thread.
 */
final class ReviveQueueReader {
    private static final Logger log = LoggerFactory.getLogger(ReviveQueueReader.class);
    static final long ACK_WAIT_MS = 2000;
    private static final int BATCH = 32;

    private final MessageStore store;
    private final ConsumerOffsetManager offsets;
    private final String reviveTopic;
    private final int queueId;
    private final MessageReviver reviver;
    private final LongSupplier timerDeliveredUpTo;

    /** CKs read and not yet finished, by revive-queue offset; a finished one stays until it is a prefix. */
    private final TreeMap<Long, PendingCheckPoint> byOffset = new TreeMap<>();
    private final Map<String, PendingCheckPoint> byKey = new HashMap<>();
    private long nextOffset = -1;
    /**
     * The queue's end when this reader (re)started: a CK below it may have been revived by an earlier run whose
     * progress was not committed (or not written before a crash), so its re-puts are looked for first.
     */
    private long readBeforeThisRun = 0;

    /**
     * @param timerDeliveredUpTo the time up to which the timer wheel has delivered every due message
     */
    ReviveQueueReader(MessageStore store, ConsumerOffsetManager offsets, String reviveTopic, int queueId,
                      MessageReviver reviver, LongSupplier timerDeliveredUpTo) {
        this.store = store;
        this.offsets = offsets;
        this.reviveTopic = reviveTopic;
        this.queueId = queueId;
        this.reviver = reviver;
        this.timerDeliveredUpTo = timerDeliveredUpTo;
    }

    /** A CK being tracked: which of its messages are acked or re-delivered. */
    static final class PendingCheckPoint {
        final CheckPoint ck;
        final BitSet done = new BitSet();
        boolean finished;

        PendingCheckPoint(CheckPoint ck) {
            this.ck = ck;
        }

        boolean allDone() {
            return done.cardinality() >= ck.num();
        }
    }

    /** Forgets what was read: the next round starts from the committed progress (a new master term). */
    void reset() {
        byOffset.clear();
        byKey.clear();
        nextOffset = -1;
    }

    /** One round: read to the end, revive what is due, commit progress. Returns the messages re-delivered. */
    int round() {
        if (nextOffset < 0) {
            long committed = offsets.queryOffset(PopConstants.REVIVE_GROUP, reviveTopic, queueId);
            nextOffset = Math.max(committed + 1, store.getMinOffsetInQueue(reviveTopic, queueId));
            readBeforeThisRun = store.getMaxOffsetInQueue(reviveTopic, queueId);
        }
        // taken before reading: every ACK due up to this time is in the queue by the end of the read
        long deliveredUpTo = timerDeliveredUpTo.getAsLong();
        readToEnd();
        int revived = 0;
        for (PendingCheckPoint p : byOffset.values()) {
            if (p.finished) {
                continue;
            }
            if (p.allDone()) {
                finish(p);
            } else if (deliveredUpTo >= p.ck.reviveTime() + ACK_WAIT_MS) {
                revived += revive(p);
            }
        }
        commitProgress();
        return revived;
    }

    private void readToEnd() {
        long max = store.getMaxOffsetInQueue(reviveTopic, queueId);
        while (nextOffset < max) {
            var entries = store.readQueueEntries(reviveTopic, queueId, nextOffset, BATCH);
            if (entries.isEmpty()) {
                long min = store.getMinOffsetInQueue(reviveTopic, queueId);
                if (nextOffset < min) {
                    log.warn("revive queue {} of {}: records {}..{} were deleted before they were read", queueId,
                        reviveTopic, nextOffset, min - 1);
                    nextOffset = min;
                    continue;
                }
                return;
            }
            for (QueueEntry e : entries) {
                if (e.size() != Integer.MAX_VALUE) {
                    StoredMessage m = store.lookMessageByOffset(e.physicalOffset());
                    if (m != null) {
                        apply(m, e.queueOffset());
                    }
                }
                nextOffset = e.queueOffset() + 1;
            }
        }
    }

    private void apply(StoredMessage m, long reviveOffset) {
        String tag = m.property(MessageProperties.TAGS);
        try {
            if (PopRecords.CK_TAG.equals(tag)) {
                CheckPoint ck = CheckPoint.fromJson(m.body()).withReviveOffset(reviveOffset);
                if (!byKey.containsKey(ck.matchKey())) {
                    PendingCheckPoint p = new PendingCheckPoint(ck);
                    byKey.put(ck.matchKey(), p);
                    byOffset.put(reviveOffset, p);
                }
            } else if (PopRecords.ACK_TAG.equals(tag)) {
                PopRecords.Ack ack = PopRecords.Ack.fromJson(m.body());
                markAcked(ack.matchKey(), ack.ackOffset());
            } else if (PopRecords.BATCH_ACK_TAG.equals(tag)) {
                PopRecords.BatchAck ack = PopRecords.BatchAck.fromJson(m.body());
                for (long offset : ack.ackOffsets()) {
                    markAcked(ack.matchKey(), offset);
                }
            }
        } catch (RuntimeException e) {
            log.warn("revive queue {} of {}: record at {} is not a readable {} record, skipped: {}", queueId,
                reviveTopic, reviveOffset, tag, e.toString());
        }
    }

    private void markAcked(String key, long ackOffset) {
        PendingCheckPoint p = byKey.get(key);
        if (p != null) {
            int index = p.ck.indexOf(ackOffset);
            if (index >= 0) {
                p.done.set(index);
            }
        }
    }

    private int revive(PendingCheckPoint p) {
        int revived = 0;
        if (!reviver.stillConsumed(p.ck)) {
            finish(p);
            return 0;
        }
        for (int i = 0; i < p.ck.num(); i++) {
            if (p.done.get(i)) {
                continue;
            }
            MessageReviver.Outcome outcome = reviver.revive(p.ck, p.ck.offset(i),
                p.ck.reviveOffset() < readBeforeThisRun);
            if (outcome == MessageReviver.Outcome.FAILED) {
                // kept: the next round tries the messages not yet re-put again
                return revived;
            }
            p.done.set(i);
            if (outcome == MessageReviver.Outcome.REVIVED) {
                revived++;
            }
        }
        finish(p);
        return revived;
    }

    private void finish(PendingCheckPoint p) {
        p.finished = true;
        byKey.remove(p.ck.matchKey());
    }

    private void commitProgress() {
        Iterator<Map.Entry<Long, PendingCheckPoint>> it = byOffset.entrySet().iterator();
        while (it.hasNext()) {
            if (it.next().getValue().finished) {
                it.remove();
            } else {
                break;
            }
        }
        long lastDone = byOffset.isEmpty() ? nextOffset - 1 : byOffset.firstKey() - 1;
        if (lastDone >= 0 && lastDone != offsets.queryOffset(PopConstants.REVIVE_GROUP, reviveTopic, queueId)) {
            offsets.commitOffset(null, PopConstants.REVIVE_GROUP, reviveTopic, queueId, lastDone);
        }
    }

    /** CKs read and not finished (tests, status). */
    int pendingCount() {
        return byKey.size();
    }
}
