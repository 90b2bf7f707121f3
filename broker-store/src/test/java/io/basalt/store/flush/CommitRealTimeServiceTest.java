package io.basalt.store.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void shutdownCommitsEverything() {
        target.buffered = true;
        service.start();
        target.append(10);
        service.shutdown();
        assertEquals(10, target.committed);
    }
}
