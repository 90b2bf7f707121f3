package io.basalt.store.flush;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.basalt.store.StoreException;

class FlushDiskWatcherTest {
    private static final long HOUR_NS = TimeUnit.HOURS.toNanos(1);

    private final FailStop failStop = new FailStop();
    private final AtomicLong nanos = new AtomicLong(1_000_000);
    private final FlushDiskWatcher watcher = new FlushDiskWatcher(nanos::get, failStop);

    private GroupCommitRequest watched(long deadlineNanos) {
        GroupCommitRequest r = new GroupCommitRequest(100, deadlineNanos);
        watcher.watch(r);
        return r;
    }

    @Test
    void timesOutOnlyWhatPassedItsDeadline() {
        GroupCommitRequest early = watched(nanos.get() + 10);
        GroupCommitRequest late = watched(nanos.get() + HOUR_NS);
        nanos.addAndGet(10);
        assertEquals(1, watcher.doWork());
        assertEquals(GroupCommitRequest.Outcome.TIMED_OUT, early.future().join());
        assertFalse(late.future().isDone());
    }

    @Test
    void aTrippedFailStopFailsEveryWatchedRequestAtOnceNamingTheService() {
        List<GroupCommitRequest> waiting = List.of(watched(nanos.get() + HOUR_NS), watched(nanos.get() + HOUR_NS));
        GroupCommitRequest flushed = watched(nanos.get() + HOUR_NS);
        flushed.future().complete(GroupCommitRequest.Outcome.FLUSHED);

        failStop.fail("GroupCommitService", new IllegalStateException("injected"));
        assertEquals(3, watcher.doWork(), "long before any deadline");
        for (GroupCommitRequest r : waiting) {
            CompletionException e = assertThrows(CompletionException.class, () -> r.future().join());
            assertInstanceOf(StoreException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("GroupCommitService"), e.getCause().getMessage());
        }
        assertEquals(GroupCommitRequest.Outcome.FLUSHED, flushed.future().join(), "a completed wait keeps its answer");
    }

    @Test
    void theLatchWakesARunningWatcher() {
        watcher.start();
        try {
            GroupCommitRequest r = watched(nanos.get() + HOUR_NS);
            failStop.fail("ReputMessageService", new IllegalStateException("injected"));
            await().atMost(Duration.ofSeconds(5)).until(() -> r.future().isCompletedExceptionally());
        } finally {
            watcher.shutdown();
        }
    }
}
