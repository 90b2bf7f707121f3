package io.basalt.common.service;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class ServiceThreadTest {

    /** Counts rounds; idles for a long time so only wakeups make it run again. */
    static final class CountingService extends ServiceThread {
        final AtomicInteger rounds = new AtomicInteger();
        final AtomicInteger shutdownCalls = new AtomicInteger();

        CountingService() {
            super("CountingService");
        }

        @Override
        protected int doWork() {
            rounds.incrementAndGet();
            return 0;
        }

        @Override
        protected long idleWaitMs() {
            return 60_000;
        }

        @Override
        protected void onShutdown() {
            shutdownCalls.incrementAndGet();
        }
    }

    @Test
    void wakeupEndsAnIdleWaitAndShutdownRunsTheFinalHookOnce() {
        CountingService service = new CountingService();
        service.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> service.rounds.get() == 1);

        service.wakeup();
        await().atMost(Duration.ofSeconds(5)).until(() -> service.rounds.get() == 2);

        assertFalse(service.isStopped());
        service.shutdown();
        service.shutdown();
        assertTrue(service.isStopped());
        assertEquals(1, service.shutdownCalls.get());
    }
}
