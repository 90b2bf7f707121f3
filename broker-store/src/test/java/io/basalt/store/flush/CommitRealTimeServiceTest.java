package io.basalt.store.flush;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class CommitRealTimeServiceTest {
    private final FakeFlushTarget target = new FakeFlushTarget();
    private final FailStop failStop = new FailStop();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicInteger committedCallbacks = new AtomicInteger();
    private final PeriodicWriteOutService service = PeriodicWriteOutService.committer(target, failStop, 200, 4, 200,
        clock::get, committedCallbacks::incrementAndGet);

    @Test
    void commitsOnPagesOrThoroughIntervalAndReportsProgress() {
        target.buffered = true;
        target.append(100);
        service.doWork();
        assertEquals(0, target.committed);
        assertEquals(0, committedCallbacks.get());

        clock.addAndGet(200);
        service.doWork();
        assertEquals(100, target.committed);
        assertEquals(1, committedCallbacks.get());

        target.append(4 * 4096);
        service.doWork();
        assertEquals(100 + 4 * 4096, target.committed);
        assertEquals(2, committedCallbacks.get());
        assertTrue(target.commitLeastPages.contains(4));
    }

    @Test
    void aPutWakesTheCommitterOnlyWhenARoundWouldCommit() {
        // an interval of a minute: only wakeups make it run a round
        PeriodicWriteOutService committer = PeriodicWriteOutService.committer(target, failStop, 60_000, 4, 60_000,
            clock::get, committedCallbacks::incrementAndGet);
        target.buffered = true;
        committer.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> target.commitLeastPages.size() == 1);

            // less than four pages pending: a round would commit nothing, so the put does not wake the thread
            target.append(3 * 4096);
            committer.wakeupForData();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> target.commitLeastPages.size() == 1);
            assertEquals(0, target.committed);

            // four pages: it does
            target.append(4096);
            committer.wakeupForData();
            await().atMost(Duration.ofSeconds(5)).until(() -> target.committed == 4 * 4096);

            // a few bytes once the thorough interval has passed: the round takes them
            target.append(10);
            clock.addAndGet(60_000);
            committer.wakeupForData();
            await().atMost(Duration.ofSeconds(5)).until(() -> target.committed == 4 * 4096 + 10);
        } finally {
            committer.shutdown();
        }
    }

    @Test
    void shutdownCommitsEverything() {
        target.buffered = true;
        service.start();
        target.append(10);
        service.shutdown();
        assertEquals(10, target.committed);
    }
}
