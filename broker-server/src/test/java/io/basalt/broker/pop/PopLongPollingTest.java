package io.basalt.broker.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The parking table: an arrival of any topic a request registered (its topic, its POP retry topics v1 and v2) re-runs
 * it once; its deadline answers it; a full table refuses; POLLING_INFO's count follows.
 */
class PopLongPollingTest {
    final PopLongPolling polling = new PopLongPolling(2);
    final AtomicInteger retried = new AtomicInteger();
    final AtomicInteger expired = new AtomicInteger();

    @AfterEach
    void close() {
        polling.shutdown();
    }

    private PopLongPolling.Waiter waiter() {
        return new PopLongPolling.Waiter(PopLongPolling.key("T", "g", -1),
            List.of("T", PopRetryTopics.v1("g", "T"), PopRetryTopics.v2("g", "T")),
            retried::incrementAndGet, expired::incrementAndGet);
    }

    @Test
    void anArrivalInTheV1RetryTopicWakesTheRequestOnce() {
        assertTrue(polling.park(waiter(), 60_000));
        assertEquals(1, polling.count("T", "g", -1));
        polling.arrived("Other");
        polling.arrived(PopRetryTopics.v1("g", "T"));
        polling.arrived("T");
        await().atMost(Duration.ofSeconds(5)).until(() -> retried.get() == 1);
        assertEquals(0, polling.count("T", "g", -1));
        assertEquals(0, polling.parkedCount());
        assertEquals(0, expired.get());
    }

    @Test
    void theDeadlineAnswersAndAFullTableRefuses() {
        assertTrue(polling.park(waiter(), 50));
        assertTrue(polling.park(waiter(), 60_000));
        assertFalse(polling.park(waiter(), 60_000), "maxParked is 2");
        await().atMost(Duration.ofSeconds(5)).until(() -> expired.get() == 1);
        assertEquals(1, polling.parkedCount());
        assertEquals(0, retried.get());
    }
}
