package io.basalt.broker.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class QueueLockManagerTest {
    private final AtomicLong now = new AtomicLong(5_000);
    private final QueueLockManager locks = new QueueLockManager(60_000, now::get);
    private final Set<QueueLockManager.MessageQueue> queue = Set.of(new QueueLockManager.MessageQueue("T", "b", 0));

    @Test
    void aGroupHoldsAnUnexpiredLockFromTryLockUntilItExpiresOrIsUnlocked() {
        assertFalse(locks.holdsUnexpiredLock("cg"));
        locks.tryLock("cg", "c1", queue);
        assertTrue(locks.holdsUnexpiredLock("cg"));
        assertFalse(locks.holdsUnexpiredLock("other"));

        now.addAndGet(60_000);
        assertTrue(locks.holdsUnexpiredLock("cg"), "60 s is still within lockExpiryMs");
        now.addAndGet(1);
        assertFalse(locks.holdsUnexpiredLock("cg"), "not renewed for more than lockExpiryMs");

        locks.tryLock("cg", "c1", queue);
        locks.unlock("cg", "c1", queue);
        assertFalse(locks.holdsUnexpiredLock("cg"));
    }
}
