package io.basalt.broker.client;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Queue ownership for orderly consumers (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ), RocketMQ's
 * RebalanceLockManager: a queue is locked by one client of a group until it unlocks it or stops
 * renewing for {@code lockExpiryMs} (RocketMQ's 60 s). Thread-safe.
 */
public final class QueueLockManager {
    /** A message queue as the client names it. */
    public record MessageQueue(String topic, String brokerName, int queueId) {
    }

    private record Lock(String clientId, long lastUpdateMillis) {
    }

    private final ConcurrentMap<String, ConcurrentMap<MessageQueue, Lock>> groups = new ConcurrentHashMap<>();
    private final long lockExpiryMs;
    private final LongSupplier clock;

    public QueueLockManager(long lockExpiryMs, LongSupplier clock) {
        this.lockExpiryMs = lockExpiryMs;
        this.clock = clock;
    }

    /** Locks what is free or already the client's (renewing it); returns the queues the client now holds. */
    public Set<MessageQueue> tryLock(String group, String clientId, Set<MessageQueue> queues) {
        ConcurrentMap<MessageQueue, Lock> locks = groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        long now = clock.getAsLong();
        Set<MessageQueue> locked = new LinkedHashSet<>();
        for (MessageQueue mq : queues) {
            Lock result = locks.compute(mq, (k, old) ->
                old == null || old.clientId().equals(clientId) || now - old.lastUpdateMillis() > lockExpiryMs
                    ? new Lock(clientId, now) : old);
            if (Objects.equals(result.clientId(), clientId)) {
                locked.add(mq);
            }
        }
        return locked;
    }

    /**
     * Whether a client of {@code group} holds a queue lock that has not expired, i.e. an orderly consumer of the
     * group is running against this broker (RocketMQ's {@code !isLockAllExpired(group)}). A send to the group's
     * {@code %RETRY%} topic is then an orderly consumer giving up on a message, which goes to the DLQ.
     */
    public boolean holdsUnexpiredLock(String group) {
        ConcurrentMap<MessageQueue, Lock> locks = groups.get(group);
        if (locks == null) {
            return false;
        }
        long now = clock.getAsLong();
        for (Lock lock : locks.values()) {
            if (now - lock.lastUpdateMillis() <= lockExpiryMs) {
                return true;
            }
        }
        return false;
    }

    public void unlock(String group, String clientId, Set<MessageQueue> queues) {
        ConcurrentMap<MessageQueue, Lock> locks = groups.get(group);
        if (locks == null) {
            return;
        }
        for (MessageQueue mq : queues) {
            locks.computeIfPresent(mq, (k, old) -> old.clientId().equals(clientId) ? null : old);
        }
    }
}
