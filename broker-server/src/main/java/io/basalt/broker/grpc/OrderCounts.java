package io.basalt.broker.grpc;

import java.util.HashMap;
import java.util.Map;

/**
 * The per-message delivery counts of an order pop, read from its {@code orderCountInfo}: entries
 * {@code "<retryFlag> qo<queueId>%<offset> <count>"} separated by {@code ;} (RocketMQ's format; the legacy per-queue
 * entries {@code "<retryFlag> <queueId> <count>"} are skipped). A message without an entry was not delivered before.
 */
final class OrderCounts {
    private final Map<String, Integer> byQueueOffset;

    private OrderCounts(Map<String, Integer> byQueueOffset) {
        this.byQueueOffset = byQueueOffset;
    }

    static OrderCounts parse(String orderCountInfo) {
        Map<String, Integer> counts = new HashMap<>();
        if (orderCountInfo != null) {
            for (String entry : orderCountInfo.split(";")) {
                String[] fields = entry.trim().split(" ");
                if (fields.length == 3 && fields[1].startsWith("qo")) {
                    counts.put(fields[1].substring(2), Integer.parseInt(fields[2]));
                }
            }
        }
        return new OrderCounts(counts);
    }

    /** How many times the message at (queueId, offset) was delivered before this pop. */
    int times(int queueId, long offset) {
        return byQueueOffset.getOrDefault(queueId + "%" + offset, 0);
    }
}
