package io.basalt.store.recovery;

import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.queue.ConsumeQueue;
import io.basalt.store.queue.ConsumeQueueStore;

/**
 * What the CommitLog recovery scan saw of each queue (its first and last record in the scanned files),
 * to find, once the consume queues are recovered, a queue that lacks entries for records the log holds:
 * a queue tail or a whole queue file lost while the broker was stopped. Without it a clean start trusts
 * the queues' own end, those messages stay unreadable and their queue offsets are handed out again.
 * Bounded: it only looks at the records recovery scans anyway (the last files after a clean stop).
 *
 * <p>Used on the start-up thread only.
 */
public final class QueueTailsSeen {
    private static final Logger LOG = LoggerFactory.getLogger(QueueTailsSeen.class);
    private static final int TRANSACTION_MASK = 0x0C;
    private static final int TRANSACTION_PREPARED_TYPE = 0x04;
    private static final int TRANSACTION_ROLLBACK_TYPE = 0x0C;

    /** First and last record of one queue in the scan. */
    private static final class Seen {
        final String topic;
        final int queueId;
        final long firstQueueOffset;
        final long firstPhysicalOffset;
        long lastQueueOffset;

        Seen(String topic, int queueId, long queueOffset, long physicalOffset) {
            this.topic = topic;
            this.queueId = queueId;
            this.firstQueueOffset = queueOffset;
            this.firstPhysicalOffset = physicalOffset;
            this.lastQueueOffset = queueOffset;
        }
    }

    private final Map<String, Seen> queues = new HashMap<>();

    /** Called for each valid record recovery scans, in log order. */
    public void record(RecordCheck check) {
        int type = check.sysFlag() & TRANSACTION_MASK;
        if (check.topic() == null || type == TRANSACTION_PREPARED_TYPE || type == TRANSACTION_ROLLBACK_TYPE) {
            return;   // no consume-queue entry for these
        }
        Seen s = queues.computeIfAbsent(check.topic() + '\u0000' + check.queueId(),
            k -> new Seen(check.topic(), check.queueId(), check.queueOffset(), check.physicalOffset()));
        s.lastQueueOffset = Math.max(s.lastQueueOffset, check.queueOffset());
    }

    /**
     * The dispatch resume offset, lowered to where a queue that lacks entries for scanned records gets
     * them back (the re-dispatch skips what the queues already hold), with one WARN per such queue.
     */
    public long resume(ConsumeQueueStore store, long resume, long commitLogMin) {
        long result = resume;
        for (Seen s : queues.values()) {
            if (store.deletedTopics().covers(s.topic, s.firstPhysicalOffset)) {
                continue;
            }
            ConsumeQueue q = store.find(s.topic, s.queueId);
            long max = q == null ? 0 : q.maxOffset();
            if (max > s.lastQueueOffset) {
                continue;
            }
            long from;
            if (max >= s.firstQueueOffset) {
                from = s.firstPhysicalOffset;   // the missing entries' records lie in the scanned files
            } else if (q != null && max > 0) {
                from = q.maxPhysicalOffset();
            } else {
                from = commitLogMin;
            }
            from = Math.max(from, commitLogMin);
            LOG.warn("ConsumeQueue {}-{} ends at logical offset {} but the CommitLog holds its message of offset {}: "
                + "entries were lost while the broker was stopped; rebuilding them from CommitLog offset {}", s.topic,
                s.queueId, max, s.lastQueueOffset, from);
            result = Math.min(result, from);
        }
        return result;
    }
}
