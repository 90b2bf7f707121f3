package io.basalt.common.service;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.Test;

class ServiceThreadTest {

    /** Counts rounds; idles for a long time so only wakeups make it run again. */
    static final class CountingService extends ServiceThread {
        final AtomicInteger rounds = new AtomicInteger();
        final AtomicInteger shutdownCalls = new AtomicInteger();

        CountingService() {
            super("CountingService", ErrorPolicy.resilient());
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

    /** Runs {@code round} as its loop body; remembers what its policy was told. */
    static final class ScriptedService extends ServiceThread {
        final AtomicInteger rounds = new AtomicInteger();
        final IntSupplier round;
        final boolean periodic;

        ScriptedService(ErrorPolicy policy, boolean periodic, IntSupplier round) {
            super("ScriptedService", policy);
            this.round = round;
            this.periodic = periodic;
        }

        @Override
        protected int doWork() {
            rounds.incrementAndGet();
            return round.getAsInt();
        }

        @Override
        protected long idleWaitMs() {
            return 60_000;
        }

        @Override
        protected boolean waitsAfterEveryRound() {
            return periodic;
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

    @Test
    void aFailingRoundIsCountedHandedToThePolicyAndTheLoopGoesOn() {
        List<Throwable> told = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        RuntimeException boom = new IllegalStateException("boom");
        ScriptedService service = new ScriptedService((s, e) -> told.add(e), false, () -> {
            int n = calls.incrementAndGet();
            if (n <= 3) {
                throw boom;
            }
            return 0;
        });
        service.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> service.rounds.get() == 4);
            assertEquals(3, service.errorCount());
            assertEquals(List.of(boom, boom, boom), told);
            assertFalse(service.isStopped(), "the service still runs after its errors");

            service.wakeup();
            await().atMost(Duration.ofSeconds(5)).until(() -> service.rounds.get() == 5);
            assertEquals(3, service.errorCount(), "a clean round counts nothing");
        } finally {
            service.shutdown();
        }
    }

    @Test
    void backOffGrowsWhileRoundsKeepFailingAndWakeupsDoNotShortenIt() {
        ScriptedService service = new ScriptedService((s, e) -> { }, false, () -> {
            throw new IllegalStateException("always");
        });
        service.start();
        try {
            // 10 + 20 + 40 + 80 + 160 + 320 ms of back-off: 7 rounds take at least 630 ms whatever the wakeups.
            long begin = System.nanoTime();
            while (service.rounds.get() < 7) {
                service.wakeup();
                Thread.onSpinWait();
            }
            long elapsedMs = (System.nanoTime() - begin) / 1_000_000;
            assertTrue(elapsedMs >= 600, "back-off honoured: " + elapsedMs + " ms");
            assertTrue(service.errorCount() >= 6);
        } finally {
            service.shutdown();
        }
        assertTrue(service.isStopped());
    }

    @Test
    void anErrorIsNotSwallowedItEndsTheThreadAndTheServiceSaysSo() {
        List<Throwable> told = new CopyOnWriteArrayList<>();
        // Not an OutOfMemoryError, which the test runner's forked JVM reports as its own crash.
        Error oom = new SimulatedFatalError();
        ScriptedService service = new ScriptedService((s, e) -> told.add(e), false, () -> {
            throw oom;
        });
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            service.start();
            // Awaitility would otherwise take the Error from the service thread and rethrow it here.
            await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(5)).until(service::isStopped);
            await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(5)).until(() -> !uncaught.isEmpty());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        assertSame(oom, service.terminalError());
        assertSame(oom, uncaught.get(0), "the Error reaches the thread's end, rethrown");
        assertEquals(List.of(oom), told);
        assertEquals(1, service.errorCount());
        assertEquals(1, service.rounds.get(), "no round after an Error");
        service.shutdown();
    }

    @Test
    void anInterruptEndsTheLoopWithTheFlagRestored() {
        AtomicInteger calls = new AtomicInteger();
        List<Boolean> interruptedAtEnd = new CopyOnWriteArrayList<>();
        ServiceThread service = new ServiceThread("InterruptedService", (s, e) -> { }) {
            @Override
            protected int doWork() throws InterruptedException {
                calls.incrementAndGet();
                throw new InterruptedException("stop");
            }

            @Override
            protected long idleWaitMs() {
                return 60_000;
            }
        };
        Thread runner = new Thread(() -> {
            service.run();
            interruptedAtEnd.add(Thread.currentThread().isInterrupted());
        });
        runner.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> !interruptedAtEnd.isEmpty());
        assertEquals(List.of(true), interruptedAtEnd);
        assertEquals(1, calls.get());
        assertEquals(0, service.errorCount(), "an interrupt is not an error");
        assertTrue(service.isStopped());
        assertNull(service.terminalError());
    }

    @Test
    void aPeriodicServiceWaitsAfterARoundThatDidWork() {
        ScriptedService periodic = new ScriptedService((s, e) -> { }, true, () -> 5);
        periodic.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> periodic.rounds.get() == 1);
            // work done does not make a periodic service loop at once: it waits for its interval
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> periodic.rounds.get() == 1);
        } finally {
            periodic.shutdown();
        }
    }

    /** Drains what callers published; pauses {@code pauseNs} after a round that drained something. */
    static final class DrainingService extends ServiceThread {
        final AtomicLong published = new AtomicLong();
        final AtomicLong drained = new AtomicLong();
        final List<Long> batches = new CopyOnWriteArrayList<>();
        final long pauseNs;

        DrainingService(long pauseNs) {
            super("DrainingService", ErrorPolicy.resilient());
            this.pauseNs = pauseNs;
        }

        void publishAndWakeup() {
            published.incrementAndGet();
            wakeup();
        }

        @Override
        protected int doWork() {
            long now = published.get();
            long batch = now - drained.get();
            if (batch > 0) {
                batches.add(batch);
                drained.set(now);
            }
            return (int) batch;
        }

        @Override
        protected long idleWaitMs() {
            // only wakeups make it run: a lost one leaves work undrained for a minute
            return 60_000;
        }

        @Override
        protected long pauseAfterWorkNanos() {
            return pauseNs;
        }
    }

    @Test
    void noWakeupIsLostWhenTheyRaceTheServiceGoingToSleep() throws Exception {
        DrainingService service = new DrainingService(0);
        service.start();
        try {
            // one at a time: each wakeup finds the service parked or about to park, and must get it to run
            for (int i = 0; i < 5_000; i++) {
                service.publishAndWakeup();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (service.drained.get() != service.published.get()) {
                    assertTrue(System.nanoTime() < deadline, "wakeup " + i + " was lost");
                    Thread.onSpinWait();
                }
            }
            // several callers at once
            Thread[] callers = new Thread[4];
            for (int t = 0; t < callers.length; t++) {
                callers[t] = new Thread(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        service.publishAndWakeup();
                        if ((i & 63) == 0) {
                            Thread.yield();
                        }
                    }
                });
                callers[t].start();
            }
            for (Thread caller : callers) {
                caller.join();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> service.drained.get() == 5_000 + 4 * 20_000);
        } finally {
            service.shutdown();
        }
    }

    @Test
    void wakeupsDuringThePauseAfterWorkAreTakenAsOneBatchAfterIt() {
        DrainingService service = new DrainingService(TimeUnit.MILLISECONDS.toNanos(700));
        service.start();
        try {
            service.publishAndWakeup();
            await().atMost(Duration.ofSeconds(5)).until(() -> service.batches.size() == 1);
            for (int i = 0; i < 5; i++) {
                service.publishAndWakeup();
            }
            // the wakeups do not end the pause: nothing more is drained for a while ...
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> service.batches.size() == 1);
            // ... then the five are drained in one round
            await().atMost(Duration.ofSeconds(5)).until(() -> service.batches.size() == 2);
            assertEquals(List.of(1L, 5L), service.batches);
        } finally {
            service.shutdown();
        }
        assertTrue(service.isStopped());
    }

    /** An Error as a service would meet one (out of memory, a linkage failure), made by the test. */
    private static final class SimulatedFatalError extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedFatalError() {
            super("simulated fatal error");
        }
    }
}
