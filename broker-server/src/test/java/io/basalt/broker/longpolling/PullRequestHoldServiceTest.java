package io.basalt.broker.longpolling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Drives the service's {@code doWork()} directly; only the resume executor runs threads. */
class PullRequestHoldServiceTest {
    final ConcurrentHashMap<String, Long> maxOffsets = new ConcurrentHashMap<>();
    final AtomicLong clock = new AtomicLong(1_000);
    final PullRequestHoldService service = new PullRequestHoldService(
        (topic, queueId) -> maxOffsets.getOrDefault(topic + "@" + queueId, 0L), clock::get, 1000);

    @AfterEach
    void stop() {
        service.start();
        service.shutdown();
    }

    private PullRequestHoldService.HeldPull held(long offset, long deadline, AtomicInteger resumed, long tagsCode) {
        return new PullRequestHoldService.HeldPull("T", 0, offset, deadline, code -> code == tagsCode,
            resumed::incrementAndGet);
    }

    @Test
    void aMatchingArrivalResumesTheHeldPull() {
        AtomicInteger resumed = new AtomicInteger();
        assertTrue(service.suspend(held(5, 20_000, resumed, 7)));
        assertEquals(1, service.heldCount());
        service.notifyMessageArriving("T", 0, 5, 8);   // other tag: stays held
        assertEquals(1, service.heldCount());
        service.notifyMessageArriving("T", 0, 5, 7);
        await().atMost(Duration.ofSeconds(5)).until(() -> resumed.get() == 1);
        assertEquals(0, service.heldCount());
    }

    @Test
    void theDeadlineResumesAPullNothingArrivedFor() throws Exception {
        AtomicInteger resumed = new AtomicInteger();
        service.suspend(held(0, 2_000, resumed, 1));
        assertEquals(0, service.doWork());
        clock.set(2_000);
        assertEquals(1, service.doWork());
        await().atMost(Duration.ofSeconds(5)).until(() -> resumed.get() == 1);
    }

    @Test
    void aMessageThatLandedBeforeRegistrationIsNotMissed() {
        AtomicInteger resumed = new AtomicInteger();
        maxOffsets.put("T@0", 6L);
        service.suspend(held(5, 20_000, resumed, 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> resumed.get() == 1);
        assertEquals(0, service.heldCount());
    }

    @Test
    void shutdownAnswersEveryHeldPullAndRefusesNewOnes() {
        AtomicInteger resumed = new AtomicInteger();
        service.suspend(held(0, 60_000, resumed, 1));
        service.start();
        service.shutdown();
        assertEquals(1, resumed.get());
        assertFalse(service.suspend(held(0, 60_000, resumed, 1)));
    }
}
