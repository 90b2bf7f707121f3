package io.basalt.it.transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.common.message.MessageExt;

/** What a push consumer was given, by message key; safe to add to from the consumer's threads. */
final class Received {
    private final Map<String, List<MessageExt>> byKey = new ConcurrentHashMap<>();

    void add(List<MessageExt> batch) {
        for (MessageExt m : batch) {
            List<MessageExt> list = byKey.computeIfAbsent(String.valueOf(m.getKeys()), k -> new ArrayList<>());
            synchronized (list) {
                list.add(m);
            }
        }
    }

    /** Every delivery of {@code key}, duplicates included. */
    List<MessageExt> of(String key) {
        List<MessageExt> list = byKey.get(key);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    int count(String key) {
        return of(key).size();
    }

    boolean hasAll(List<String> keys) {
        return keys.stream().allMatch(k -> count(k) > 0);
    }
}
