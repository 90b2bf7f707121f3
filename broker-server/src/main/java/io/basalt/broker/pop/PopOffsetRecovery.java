package io.basalt.broker.pop;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up repair of POP offsets with the store as the source of truth. A pop stores its CK before it commits the
 * group's offset past the messages, but consumerOffset.json is written later: after a kill -9 the file can be
 * behind the stored CKs, and the queue would be popped again (each message then comes twice: re-popped and revived
 * through its CK; an acked message would come back too).
 *
 * <p>Every CK whose commit the file may miss is at or past the {@link CheckPointScanStart} written with that file:
 * in {@code rmq_sys_wheel_timer} queue 0 (a CK is a timer message kept there until due) or in its revive queue (where
 * the timer puts it when due, or where it is stored directly when due at once). Both are read from there to their
 * end, and each (topic, group, queueId) offset is raised to at least one past the last message of any CK found.
 * Without the file (a store written before Basalt kept it) the whole wheel topic and each revive queue from the
 * revive group's progress are read. Offsets are only ever raised: a raise past a CK is what the pop had committed.
 */
final class PopOffsetRecovery {
    private static final Logger log = LoggerFactory.getLogger(PopOffsetRecovery.class);
    private static final int BATCH = 256;

    private final MessageStore store;
    private final ConsumerOffsetManager offsets;
    private final TopicConfigManager topics;
    private final String reviveTopic;
    private final int reviveQueueNum;

    PopOffsetRecovery(MessageStore store, ConsumerOffsetManager offsets, TopicConfigManager topics,
                      String reviveTopic, int reviveQueueNum) {
        this.store = store;
        this.offsets = offsets;
        this.topics = topics;
        this.reviveTopic = reviveTopic;
        this.reviveQueueNum = reviveQueueNum;
    }

    /** A raised offset: the group's queue, the offset the file had (-1: none) and the one committed now. */
    record Raise(String topic, String group, int queueId, long from, long to) {
    }

    /** Reads the CKs from {@code start} (empty: from the beginning) and raises the offsets behind them. */
    List<Raise> recover(Optional<CheckPointScanStart> start) {
        Map<String, CheckPoint> lastByQueue = new HashMap<>();
        Map<String, Long> endByQueue = new HashMap<>();
        long wheelFrom = start.map(CheckPointScanStart::wheelTimerOffset)
            .orElse(store.getMinOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0));
        scan(PopConstants.WHEEL_TIMER_TOPIC, 0, wheelFrom, true, lastByQueue, endByQueue);
        for (int q = 0; q < reviveQueueNum; q++) {
            long afterProgress = offsets.queryOffset(PopConstants.REVIVE_GROUP, reviveTopic, q) + 1;
            int queueId = q;
            long from = start.map(s -> s.reviveOffsets().getOrDefault(queueId, 0L)).orElse(afterProgress);
            // the revive reader reads from its progress anyway: never start the scan later than that
            scan(reviveTopic, q, Math.min(from, afterProgress), false, lastByQueue, endByQueue);
        }
        List<Raise> raised = new java.util.ArrayList<>();
        endByQueue.forEach((key, end) -> {
            CheckPoint ck = lastByQueue.get(key);
            // the group is not required to be known: an auto-created group is written to subscriptionGroup.json
            // by the background persister, so a kill -9 can lose it while its CKs are stored
            if (topics.get(ck.topic()) == null) {
                return;
            }
            long committed = offsets.queryOffset(ck.group(), ck.topic(), ck.queueId());
            if (committed < end) {
                offsets.commitOffset(null, ck.group(), ck.topic(), ck.queueId(), end);
                raised.add(new Raise(ck.topic(), ck.group(), ck.queueId(), committed, end));
            }
        });
        for (Raise r : raised) {
            log.warn("POP offset of group {} on {} queue {} was {} in consumerOffset.json but checkpoints stored up to"
                + " offset {} exist (a crash before the offsets were written): raised to {}, so those messages are"
                + " not popped again", r.group(), r.topic(), r.queueId(), r.from(), r.to() - 1, r.to());
        }
        return raised;
    }

    private void scan(String topic, int queueId, long from, boolean wheel, Map<String, CheckPoint> lastByQueue,
                      Map<String, Long> endByQueue) {
        long next = Math.max(from, store.getMinOffsetInQueue(topic, queueId));
        long max = store.getMaxOffsetInQueue(topic, queueId);
        while (next < max) {
            List<QueueEntry> entries = store.readQueueEntries(topic, queueId, next, BATCH);
            if (entries.isEmpty()) {
                return;
            }
            for (QueueEntry e : entries) {
                next = e.queueOffset() + 1;
                if (e.size() == Integer.MAX_VALUE) {
                    continue;
                }
                StoredMessage m = store.lookMessageByOffset(e.physicalOffset());
                if (m == null || !PopRecords.CK_TAG.equals(m.property(MessageProperties.TAGS))
                    || wheel && !reviveTopic.equals(m.property(PopConstants.REAL_TOPIC))) {
                    continue;
                }
                CheckPoint ck;
                try {
                    ck = CheckPoint.fromJson(m.body());
                } catch (RuntimeException ex) {
                    log.warn("unreadable POP checkpoint at {} queue {} offset {}: {}", topic, queueId,
                        e.queueOffset(), ex.toString());
                    continue;
                }
                if (ck.num() <= 0 || ck.topic() == null || ck.group() == null) {
                    continue;
                }
                long end = 0;
                for (int i = 0; i < ck.num(); i++) {
                    end = Math.max(end, ck.offset(i) + 1);
                }
                String key = ck.topic() + "@" + ck.group() + "@" + ck.queueId();
                if (end > endByQueue.getOrDefault(key, -1L)) {
                    endByQueue.put(key, end);
                    lastByQueue.put(key, ck);
                }
            }
        }
    }
}
