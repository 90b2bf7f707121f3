package io.basalt.store.commitlog;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The next consume-queue offset of every (topic, queueId), keyed {@code topic-queueId} like
 * RocketMQ's topicQueueTable. Offsets are taken and advanced only under the CommitLog's put lock,
 * so they follow append order; other threads may read them. At startup the store sets them from the
 * consume queues' max offsets ({@link #set}) before any put.
 */
public final class QueueOffsetTable {
    /** One queue's counter; written under the put lock, read by anyone. */
    static final class Counter {
        volatile long next;
    }

    private final ConcurrentHashMap<String, Counter> table = new ConcurrentHashMap<>();

    static String key(String topic, int queueId) {
        return topic + '-' + queueId;
    }

    /** The counter of {@code key}, created at 0 the first time (put lock held). */
    Counter counter(String key) {
        Counter c = table.get(key);
        return c != null ? c : table.computeIfAbsent(key, k -> new Counter());
    }

    /** Next offset to be assigned in (topic, queueId); 0 for a queue never written. */
    public long nextOffset(String topic, int queueId) {
        Counter c = table.get(key(topic, queueId));
        return c == null ? 0 : c.next;
    }

    /** Sets the next offset of (topic, queueId), e.g. from its consume queue at startup. */
    public void set(String topic, int queueId, long nextOffset) {
        counter(key(topic, queueId)).next = nextOffset;
    }

    /** Forgets a queue (topic deleted). */
    public void remove(String topic, int queueId) {
        table.remove(key(topic, queueId));
    }

    /**
     * Forgets every queue of {@code topic} (the topic was deleted): the next put to it gets offset 0.
     * Keys are {@code topic-queueId}, so only keys whose rest after {@code topic-} is a queue id match.
     * Put lock held, so no put of the topic is between taking and advancing its counter.
     */
    void removeTopic(String topic) {
        String prefix = topic + '-';
        table.keySet().removeIf(k -> k.startsWith(prefix) && isQueueId(k.substring(prefix.length())));
    }

    private static boolean isQueueId(String s) {
        if (s.isEmpty() || s.length() > 10) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** A snapshot of all counters, key {@code topic-queueId}. */
    public Map<String, Long> snapshot() {
        Map<String, Long> copy = new HashMap<>();
        table.forEach((k, v) -> copy.put(k, v.next));
        return copy;
    }
}
