package io.basalt.broker.processor.admin;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;

/**
 * QUERY_CORRECTION_OFFSET's arithmetic: per queue, the lowest committed offset of the topic's groups (other than
 * the filtered ones; offsets below the queue's minimum offset do not count); then, for each queue the compare
 * group has an offset for, {@code Long.MAX_VALUE} when that lowest offset is above the compare group's.
 *
 * <p>Two RocketMQ 5.2.0 defects are not copied: RocketMQ leaves the filtered groups out by deleting their committed
 * offsets of every topic from the broker's live table, and answers a queue the compare group has but no other
 * group has with a NullPointerException. Here nothing is deleted, and such a queue's lowest offset is that of
 * an empty set of groups, above any offset: {@code Long.MAX_VALUE}. Pure function.
 */
final class CorrectionOffsets {

    private CorrectionOffsets() {
    }

    /**
     * @param offsetsByGroup every group with committed offsets on the topic: group → queueId → offset
     * @param filterGroups groups left out of the minimum
     * @param compareOffsets the compare group's committed offsets: queueId → offset
     * @param minOffset the queue's minimum offset in the store
     */
    static Map<Integer, Long> compute(Map<String, Map<Integer, Long>> offsetsByGroup, Set<String> filterGroups,
                                      Map<Integer, Long> compareOffsets, IntToLongFunction minOffset) {
        Map<Integer, Long> lowest = new TreeMap<>();
        offsetsByGroup.forEach((group, queues) -> {
            if (filterGroups.contains(group)) {
                return;
            }
            queues.forEach((queueId, offset) -> {
                if (offset >= minOffset.applyAsLong(queueId)) {
                    lowest.merge(queueId, offset, Math::min);
                }
            });
        });
        compareOffsets.forEach((queueId, offset) -> {
            long others = lowest.getOrDefault(queueId, Long.MAX_VALUE);
            lowest.put(queueId, others > offset ? Long.MAX_VALUE : others);
        });
        return lowest;
    }
}
