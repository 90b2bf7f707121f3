package io.basalt.broker.transaction;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The op ("done") markers of one scan: every marker of {@code RMQ_SYS_TRANS_OP_HALF_TOPIC} queue 0 from the scan
 * group's op offset to the queue's end, read once when the scan starts, so that no half message is checked or given
 * up while a marker that decides it is still unread (RocketMQ pulls 32 at a time and may decide before it has read
 * them all, #6737). Bodies are read with {@link OpMarkerBody#parse}, both RocketMQ formats; a marker that cannot be
 * read (no record, a body that is not offsets, another tag) is logged, counts as done, and never stops the scan.
 *
 * <p>The decided half offsets are held as a bit set over the scan's range {@code [halfOffset, halfEnd)} plus a set
 * of the few offsets below it (originals of immunity copies decided after the scan passed them); offsets at or past
 * {@code halfEnd} belong to a later scan. For the op offset the scan commits, a marker is done once every half
 * offset it names at or above the scan's start is behind the new half offset. Used by the scan thread only.
 */
final class OpMarkers {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    private static final int READ_BATCH = 256;

    private final long halfOffset;
    private final long halfEnd;
    private final long opOffset;
    private final BitSet decidedInRange = new BitSet();
    private final Set<Long> decidedBelow = new HashSet<>();
    /** Per marker from {@link #opOffset} on: the highest half offset it names at or above halfOffset, or -1. */
    private final List<Long> highestRelevant = new ArrayList<>();

    private OpMarkers(long halfOffset, long halfEnd, long opOffset) {
        this.halfOffset = halfOffset;
        this.halfEnd = halfEnd;
        this.opOffset = opOffset;
    }

    /**
     * Reads every marker from {@code opOffset} to the op queue's end. Markers below the queue's minimum offset (its
     * files cleaned by retention) are gone: they count as done.
     */
    static OpMarkers load(MessageStore store, long opOffset, long halfOffset, long halfEnd) {
        String topic = TransactionalMessages.OP_HALF_TOPIC;
        int queueId = TransactionalMessages.HALF_QUEUE_ID;
        long min = store.getMinOffsetInQueue(topic, queueId);
        if (opOffset < min) {
            log.warn("op offset {} of {} is below the queue's minimum {}: the markers in between are gone, counted done",
                opOffset, topic, min);
        }
        OpMarkers markers = new OpMarkers(halfOffset, halfEnd, Math.max(opOffset, min));
        long end = store.getMaxOffsetInQueue(topic, queueId);
        long next = markers.opOffset;
        while (next < end) {
            List<QueueEntry> entries = store.readQueueEntries(topic, queueId, next, (int) Math.min(READ_BATCH, end - next));
            if (entries.isEmpty()) {
                break;
            }
            for (QueueEntry entry : entries) {
                markers.add(entry, store);
            }
            next += entries.size();
        }
        return markers;
    }

    private void add(QueueEntry entry, MessageStore store) {
        long highest = -1;
        StoredMessage marker = entry.size() == Integer.MAX_VALUE ? null : store.lookMessageByOffset(entry.physicalOffset());
        if (marker == null) {
            log.warn("op marker {} of {} has no record; counted as done", entry.queueOffset(),
                TransactionalMessages.OP_HALF_TOPIC);
        } else if (!TransactionalMessages.REMOVE_TAG.equals(marker.property(MessageProperties.TAGS))) {
            log.error("op marker {} has tag {}, not {}; counted as done", entry.queueOffset(),
                marker.property(MessageProperties.TAGS), TransactionalMessages.REMOVE_TAG);
        } else {
            try {
                for (long decided : OpMarkerBody.parse(marker.body())) {
                    highest = Math.max(highest, record(decided));
                }
            } catch (IllegalArgumentException e) {
                log.error("op marker {} is unreadable ({}); counted as done", entry.queueOffset(), e.getMessage());
                highest = -1;
            }
        }
        highestRelevant.add(highest);
    }

    /** Records one decided half offset; returns it when the op offset must wait for it, else -1. */
    private long record(long decided) {
        if (decided < halfOffset) {
            decidedBelow.add(decided);
            return -1;
        }
        if (decided < halfEnd) {
            decidedInRange.set(Math.toIntExact(decided - halfOffset));
        }
        return decided;
    }

    /** Whether a marker read by this scan names {@code halfQueueOffset}. */
    boolean isDecided(long halfQueueOffset) {
        if (halfQueueOffset < halfOffset) {
            return decidedBelow.contains(halfQueueOffset);
        }
        return halfQueueOffset < halfEnd && decidedInRange.get(Math.toIntExact(halfQueueOffset - halfOffset));
    }

    /** Markers read. */
    int count() {
        return highestRelevant.size();
    }

    /**
     * The op offset to commit once the half offset is {@code newHalfOffset}: past the run of markers, from the
     * scan's op offset on, whose half offsets are all behind it (RocketMQ's {@code calculateOpOffset}).
     */
    long nextOpOffset(long newHalfOffset) {
        long next = opOffset;
        for (long highest : highestRelevant) {
            if (highest >= newHalfOffset) {
                break;
            }
            next++;
        }
        return next;
    }
}
