package io.basalt.broker.pop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last batch an order POP handed out from one queue to one group (RocketMQ's {@code OrderInfo}): its queue
 * offsets in pop order, which of them are acked, when it was popped and for how long it is invisible, the attempt
 * that popped it, per-offset next-visible times set by CHANGE_MESSAGE_INVISIBLETIME, how often each offset had been
 * delivered before, and when the queue was last consumed. Mutable; guarded by its {@link OrderInfoTable}.
 */
final class OrderBatch {
    /** RocketMQ's acked bitmap is one long: at most 64 offsets per batch (a POP returns at most 32). */
    static final int MAX_OFFSETS = 64;

    final String attemptId;
    final long popTime;
    final long invisibleTime;
    /** Absolute queue offsets, ascending. */
    final List<Long> offsets;
    /** Bit i set: {@code offsets.get(i)} is acked. */
    long ackedBits;
    /** Queue offset → next-visible time (ms) overriding {@code popTime + invisibleTime}. */
    final Map<Long, Long> nextVisible;
    /** Queue offset → deliveries before this one; only offsets delivered before. */
    final Map<Long, Integer> consumedCounts;
    long lastConsumeTimestamp;

    OrderBatch(String attemptId, long popTime, long invisibleTime, List<Long> offsets, long ackedBits,
               Map<Long, Long> nextVisible, Map<Long, Integer> consumedCounts, long lastConsumeTimestamp) {
        this.attemptId = attemptId;
        this.popTime = popTime;
        this.invisibleTime = invisibleTime;
        this.offsets = List.copyOf(offsets);
        this.ackedBits = ackedBits;
        this.nextVisible = new TreeMap<>(nextVisible);
        this.consumedCounts = new TreeMap<>(consumedCounts);
        this.lastConsumeTimestamp = lastConsumeTimestamp;
    }

    boolean acked(int index) {
        return (ackedBits & (1L << index)) != 0;
    }

    int indexOf(long offset) {
        return offsets.indexOf(offset);
    }

    /** When the offset at {@code index} becomes visible again: its override, else {@code popTime + invisibleTime}. */
    long visibleAt(int index) {
        Long override = nextVisible.get(offsets.get(index));
        return override != null ? override : popTime + invisibleTime;
    }

    List<Long> unacked() {
        List<Long> pending = new ArrayList<>();
        for (int i = 0; i < offsets.size(); i++) {
            if (!acked(i)) {
                pending.add(offsets.get(i));
            }
        }
        return Collections.unmodifiableList(pending);
    }

    /** The offset to commit: the first un-acked offset of the batch, or the last one + 1 once all are acked. */
    long nextOffset() {
        for (int i = 0; i < offsets.size(); i++) {
            if (!acked(i)) {
                return offsets.get(i);
            }
        }
        return offsets.get(offsets.size() - 1) + 1;
    }

    /** Each offset of the batch with its earlier deliveries (0 for an offset delivered for the first time). */
    Map<Long, Integer> countsOfEveryOffset() {
        Map<Long, Integer> counts = new TreeMap<>();
        for (long offset : offsets) {
            counts.put(offset, consumedCounts.getOrDefault(offset, 0));
        }
        return Collections.unmodifiableMap(counts);
    }
}
