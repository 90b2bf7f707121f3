package io.basalt.store.flush;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class FlushRealTimeServiceTest {
    private final FakeFlushTarget target = new FakeFlushTarget();
    private final FailStop failStop = new FailStop();
    private final AtomicLong clock = new AtomicLong(1_000_000);

    private PeriodicWriteOutService service() {
        return PeriodicWriteOutService.flusher(target, failStop, 500, 4, 10_000, true, clock::get);
    }

    @Test
    void forcesOnlyWhenEnoughPagesAreDirtyUntilTheThoroughInterval() {
        PeriodicWriteOutService service = service();
        target.append(3 * 4096);
        service.doWork();
        assertEquals(0, target.flushed, "3 dirty pages are below flushCommitLogLeastPages=4");
        assertEquals(List.of(4), target.flushLeastPages);

        target.append(4096);
        service.doWork();
        assertEquals(4 * 4096, target.flushed);

        target.append(100);
        clock.addAndGet(9_999);
        service.doWork();
        assertEquals(4 * 4096, target.flushed);
        clock.addAndGet(1);
        service.doWork();
        assertEquals(4 * 4096 + 100, target.flushed, "the thorough flush forces any dirty byte");
    }

    @Test
    void aRoundForcesOnceAndLeavesWhatWasAppendedDuringItsForceToTheNextRound() {
        PeriodicWriteOutService service = service();
        target.append(8 * 4096);
        target.duringForce = () -> target.append(5 * 4096);
        service.doWork();
        assertEquals(8 * 4096, target.flushed, "the round did not chase the bytes appended during its force");
        assertEquals(1, target.forces.get());

        target.duringForce = null;
        service.doWork();
        assertEquals(13 * 4096, target.flushed);
        assertEquals(2, target.forces.get());
    }

    @Test
    void observerHearsOnlyOfForcesThatWroteSomething() {
        PeriodicWriteOutService service = service();
        List<Long> durations = new ArrayList<>();
        service.setObserver((durationNanos, groupSize) -> durations.add(durationNanos));
        target.append(3 * 4096);
        service.doWork();
        assertEquals(0, durations.size(), "below flushCommitLogLeastPages nothing was forced");
        target.append(4096);
        service.doWork();
        assertEquals(1, durations.size());
        assertTrue(durations.get(0) >= 0);
    }

    @Test
    void inWakeupModeNewDataWakesTheFlusherBeforeItsInterval() {
        // An hour-long interval: only the wakeup can explain a flush within the test.
        PeriodicWriteOutService service = PeriodicWriteOutService.flusher(target, failStop, 3_600_000, 1, 3_600_000, false,
            clock::get);
        service.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !target.flushLeastPages.isEmpty());
            target.append(4096);
            service.wakeupForData();
            await().atMost(Duration.ofSeconds(10)).until(() -> target.flushed == 4096);
        } finally {
            service.shutdown();
        }
    }

    @Test
    void shutdownForcesEverything() {
        PeriodicWriteOutService service = service();
        service.start();
        target.append(10);
        service.shutdown();
        assertEquals(10, target.flushed);
    }

    @Test
    void ioExceptionTripsFailStopAndStopsForcing() {
        PeriodicWriteOutService service = service();
        target.forceFailure = new IOException("EIO");
        target.append(8 * 4096);
        service.doWork();
        assertTrue(failStop.failed());
        assertEquals(0, target.flushed);
        target.forceFailure = null;
        int forces = target.forces.get();
        service.doWork();
        assertEquals(forces, target.forces.get());
        assertEquals(0, target.flushed);
    }
}
