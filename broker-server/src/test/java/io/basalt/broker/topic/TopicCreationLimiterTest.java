package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class TopicCreationLimiterTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Test
    void aHostGetsItsRatePerSecondSharedByAllItsConnectionsAndNoMore() {
        TopicCreationLimiter limiter = new TopicCreationLimiter(3, nanos::get);
        InetSocketAddress a1 = new InetSocketAddress("10.0.0.1", 40001);
        InetSocketAddress a2 = new InetSocketAddress("10.0.0.1", 40002);
        assertTrue(limiter.tryAcquire(a1));
        assertTrue(limiter.tryAcquire(a2));
        assertTrue(limiter.tryAcquire(a1));
        assertFalse(limiter.tryAcquire(a2), "the fourth creation within the second, from another port of the host");
        assertTrue(limiter.tryAcquire(new InetSocketAddress("10.0.0.2", 40001)), "another host has its own allowance");
        nanos.addAndGet(340_000_000L);
        assertTrue(limiter.tryAcquire(a1), "a third of a second gives one creation back");
        assertFalse(limiter.tryAcquire(a1));
        nanos.addAndGet(60_000_000_000L);
        int allowed = 0;
        while (limiter.tryAcquire(a1)) {
            allowed++;
        }
        assertEquals(3, allowed, "an idle host's allowance is capped at one second's worth");
    }

    @Test
    void zeroMeansNoLimit() {
        TopicCreationLimiter limiter = new TopicCreationLimiter(0, nanos::get);
        for (int i = 0; i < 100_000; i++) {
            assertTrue(limiter.tryAcquire(new InetSocketAddress("10.0.0.1", 1)));
        }
    }
}
