package io.basalt.store.flush;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.basalt.store.StoreException;

class GroupCommitServiceTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long NO_DEADLINE = TimeUnit.HOURS.toNanos(1);

    private final FakeFlushTarget target = new FakeFlushTarget();
    private final FailStop failStop = new FailStop();
    private final FlushDiskWatcher watcher = new FlushDiskWatcher(System::nanoTime, failStop);
    private final GroupCommitService service = new GroupCommitService(target, failStop, watcher, Runnable::run);

    @AfterEach
    void stop() {
        CountDownLatch hold = target.holdForce;
        if (hold != null) {
            hold.countDown();
        }
        service.shutdown();
        watcher.shutdown();
    }

    private GroupCommitRequest append(int bytes, long timeoutNanos) {
        target.append(bytes);
        GroupCommitRequest request = new GroupCommitRequest(target.wrote, System.nanoTime() + timeoutNanos);
        service.submit(request);
        return request;
    }

    @Test
    void oneDoWorkForcesOnceAndCompletesEveryCoveredRequest() {
        List<GroupCommitRequest> requests = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            requests.add(append(100, NO_DEADLINE));
        }
        service.doWork();
        assertEquals(1, target.forces.get());
        for (GroupCommitRequest r : requests) {
            assertEquals(GroupCommitRequest.Outcome.FLUSHED, r.future().getNow(null));
        }
        assertEquals(0, service.pendingCount());
    }

    @Test
    void observerHearsOfEachForceWithItsGroupSize() {
        List<Integer> groups = new ArrayList<>();
        service.setObserver((durationNanos, groupSize) -> groups.add(groupSize));
        for (int i = 0; i < 3; i++) {
            append(100, NO_DEADLINE);
        }
        service.doWork();
        service.doWork();
        assertEquals(List.of(3), groups, "one force for the group of three, none while clean");
    }

    @Test
    void futureCompletesOnlyAfterForce() {
        target.holdForce = new CountDownLatch(1);
        List<Long> flushedAtCompletion = new CopyOnWriteArrayList<>();
        GroupCommitRequest first = append(1000, NO_DEADLINE);
        first.future().thenRun(() -> flushedAtCompletion.add(target.flushed));
        service.start();
        await().atMost(WAIT).until(() -> target.inForce);

        // Requests arriving while force() runs queue up; nothing has completed yet.
        List<GroupCommitRequest> group = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            GroupCommitRequest r = append(100, NO_DEADLINE);
            r.future().thenRun(() -> flushedAtCompletion.add(target.flushed));
            group.add(r);
        }
        assertFalse(first.future().isDone());
        assertTrue(group.stream().noneMatch(r -> r.future().isDone()));

        target.holdForce.countDown();
        await().atMost(WAIT).until(() -> group.stream().allMatch(r -> r.future().isDone()));
        assertEquals(GroupCommitRequest.Outcome.FLUSHED, first.future().join());
        group.forEach(r -> assertEquals(GroupCommitRequest.Outcome.FLUSHED, r.future().join()));
        // One force for the first request, one for the whole group that queued behind it.
        assertEquals(2, target.forces.get());
        assertEquals(1000, flushedAtCompletion.get(0));
        assertTrue(flushedAtCompletion.stream().allMatch(f -> f >= 1000));
        assertTrue(flushedAtCompletion.subList(1, flushedAtCompletion.size()).stream().allMatch(f -> f >= 1800));
    }

    @Test
    void timesOutWhenForceIsStuck() {
        target.holdForce = new CountDownLatch(1);
        watcher.start();
        service.start();
        GroupCommitRequest request = append(100, TimeUnit.MILLISECONDS.toNanos(50));
        await().atMost(WAIT).until(() -> request.future().isDone());
        assertEquals(GroupCommitRequest.Outcome.TIMED_OUT, request.future().join());
        assertTrue(target.inForce);
        assertEquals(0, target.flushed);
    }

    @Test
    void ioExceptionFromForceFailsEveryWaiterAndTripsFailStop() {
        target.forceFailure = new IOException("EIO");
        List<GroupCommitRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            requests.add(append(100, NO_DEADLINE));
        }
        service.doWork();
        assertTrue(failStop.failed());
        assertSame(target.forceFailure, failStop.cause());
        assertEquals(0, target.flushed);
        for (GroupCommitRequest r : requests) {
            CompletionException e = assertThrows(CompletionException.class, () -> r.future().join());
            assertInstanceOf(StoreException.class, e.getCause());
        }

        // After the failure nothing is forced again, and new waiters fail too.
        target.forceFailure = null;
        int forcesBefore = target.forces.get();
        GroupCommitRequest late = append(100, NO_DEADLINE);
        service.doWork();
        assertEquals(forcesBefore, target.forces.get());
        assertThrows(CompletionException.class, () -> late.future().join());
        assertEquals(0, target.flushed);
    }

    @Test
    void flushesWaitFalseAppendsWithoutRequests() {
        target.append(500);
        service.wakeup();
        service.doWork();
        assertEquals(500, target.flushed);
    }

    @Test
    void commitsBufferedBytesBeforeForcing() {
        target.buffered = true;
        GroupCommitRequest request = append(700, NO_DEADLINE);
        service.doWork();
        assertEquals(700, target.committed);
        assertEquals(700, target.flushed);
        assertEquals(GroupCommitRequest.Outcome.FLUSHED, request.future().join());
    }

    @Test
    void shutdownForcesAndAnswersWhatIsPending() {
        service.start();
        target.holdForce = new CountDownLatch(1);
        GroupCommitRequest request = append(100, NO_DEADLINE);
        await().atMost(WAIT).until(() -> target.inForce);
        target.holdForce.countDown();
        service.shutdown();
        assertEquals(GroupCommitRequest.Outcome.FLUSHED, request.future().join());
    }
}
