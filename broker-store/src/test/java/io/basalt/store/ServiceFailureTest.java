package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.flush.FailStop;
import io.basalt.store.flush.FlushTarget;
import io.basalt.store.flush.ForwardingFlushTarget;
import io.basalt.store.recovery.AbortMarker;

/**
 * An unexpected RuntimeException in each kind of service: a durability-critical one (group commit,
 * flush, commit, dispatch) fail-stops the store at once, and the producer's waiting and next puts learn
 * it without waiting for a timeout; a resilient one (the disk watch) counts the error and goes on working.
 */
class ServiceFailureTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Far above what the tests allow for an answer: a timeout never explains a prompt failure. */
    private static final long SYNC_FLUSH_TIMEOUT_MS = 30_000;

    @TempDir
    Path root;
    private final List<MessageStore> opened = new ArrayList<>();
    private final StoreTestSupport.SettableClock clock = new StoreTestSupport.SettableClock(Instant.now());
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);
    private final ListAppender<ILoggingEvent> failStopLog = new ListAppender<>();

    /** Throws {@link #failure} from the operation it is armed for; passes everything else through. */
    static final class FaultyFlushTarget extends ForwardingFlushTarget {
        enum Operation { COMMIT, FLUSH }

        volatile Operation armed;
        /** When set, an armed flush waits for it before it throws (so puts can queue up behind it). */
        volatile CountDownLatch hold;
        volatile boolean inFlush;
        final RuntimeException failure = new IllegalStateException("injected fault");

        FaultyFlushTarget(FlushTarget delegate) {
            super(delegate);
        }

        @Override
        public long commit(int leastPages) throws IOException {
            if (armed == Operation.COMMIT && delegate.appendedOffset() > delegate.committedOffset()) {
                throw failure;
            }
            return delegate.commit(leastPages);
        }

        @Override
        public long flush(int leastPages) throws IOException {
            if (armed == Operation.FLUSH && delegate.committedOffset() > delegate.flushedOffset()) {
                inFlush = true;
                CountDownLatch latch = hold;
                if (latch != null) {
                    try {
                        latch.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                throw failure;
            }
            return delegate.flush(leastPages);
        }
    }

    private FaultyFlushTarget faulty;

    @AfterEach
    void shutdownAll() {
        for (MessageStore s : opened) {
            s.shutdown();
        }
        ((Logger) LoggerFactory.getLogger(FailStop.class)).detachAppender(failStopLog);
    }

    private MessageStore start(StoreConfig config) throws IOException {
        failStopLog.start();
        ((Logger) LoggerFactory.getLogger(FailStop.class)).addAppender(failStopLog);
        UnaryOperator<FlushTarget> hook = target -> faulty = new FaultyFlushTarget(target);
        MessageStore store = MessageStore.open(config, StoreTestSupport.environment(clock, diskUsage), hook);
        opened.add(store);
        store.load();
        store.start();
        return store;
    }

    private StoreConfig.Builder config(FlushDiskType type) {
        return StoreConfig.builder().storePathRootDir(root.toString())
                .mappedFileSizeCommitLog(StoreTestSupport.COMMIT_LOG_FILE_SIZE)
                .mappedFileSizeConsumeQueue(StoreTestSupport.CONSUME_QUEUE_FILE_SIZE).flushDiskType(type)
                .warmMapedFileEnable(false).flushIntervalCommitLog(10).syncFlushTimeout(SYNC_FLUSH_TIMEOUT_MS)
                .cleanResourceInterval(3_600_000).transientStorePoolSize(2);
    }

    private static CompletableFuture<PutMessageResult> put(MessageStore store, int i) {
        return store.asyncPutMessage(message("T", 0, null, null, "m" + i));
    }

    /** What every durability-critical failure must look like from outside. */
    private void assertFailStopped(MessageStore store, String service) throws Exception {
        await().atMost(WAIT).until(store::isFailStopped);
        assertFalse(store.isWritable());
        assertFalse(store.commitLog().isWritable());
        assertTrue(store.serviceErrorCounts().get(service) >= 1, () -> service + " counted: " + store.serviceErrorCounts());
        assertTrue(store.serviceErrorCount() >= 1);
        CompletableFuture<PutMessageResult> next = put(store, 999);
        assertTrue(next.isDone(), "a put after the fail-stop is answered at once");
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, next.get().status());
        List<ILoggingEvent> errors = failStopLog.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
        assertEquals(1, errors.size(), "one ERROR line: " + errors);
        String line = errors.get(0).getFormattedMessage();
        assertTrue(line.contains("read-only") && line.contains(service), line);
    }

    private void assertKeepsAbortMarker(MessageStore store) {
        store.shutdown();
        assertTrue(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "a failed store does not claim a clean shutdown");
    }

    @Test
    void groupCommitErrorFailsWaitingAndNextPutsAtOnce() throws Exception {
        MessageStore store = start(config(FlushDiskType.SYNC_FLUSH).build());
        assertEquals(PutMessageStatus.PUT_OK, put(store, 0).get().status());
        faulty.hold = new CountDownLatch(1);
        faulty.armed = FaultyFlushTarget.Operation.FLUSH;
        List<CompletableFuture<PutMessageResult>> pending = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            pending.add(put(store, i));
        }
        await().atMost(WAIT).until(() -> faulty.inFlush);
        assertTrue(pending.stream().noneMatch(CompletableFuture::isDone));
        long begin = System.nanoTime();
        faulty.hold.countDown();
        for (CompletableFuture<PutMessageResult> f : pending) {
            Exception e = assertThrows(Exception.class,
                () -> f.get(SYNC_FLUSH_TIMEOUT_MS / 2, TimeUnit.MILLISECONDS));
            assertInstanceOf(StoreException.class, e.getCause(), e.toString());
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        assertTrue(tookMs < 5_000, "waiting puts failed promptly, not at a timeout: " + tookMs + " ms");
        assertFailStopped(store, "GroupCommitService");
        assertKeepsAbortMarker(store);
    }

    @Test
    void flushServiceErrorFailStopsAnAsyncStore() throws Exception {
        MessageStore store = start(config(FlushDiskType.ASYNC_FLUSH).build());
        faulty.armed = FaultyFlushTarget.Operation.FLUSH;
        assertEquals(PutMessageStatus.PUT_OK, put(store, 1).get().status(), "ASYNC_FLUSH acknowledges before force()");
        assertFailStopped(store, "FlushRealTimeService");
        assertEquals(0, store.commitLog().flushedOffset(), "nothing was forced");
        assertKeepsAbortMarker(store);
    }

    @Test
    void commitServiceErrorFailStopsAStoreWithAWriteBuffer() throws Exception {
        MessageStore store = start(config(FlushDiskType.ASYNC_FLUSH).transientStorePoolEnable(true)
                .commitCommitLogLeastPages(0).build());
        faulty.armed = FaultyFlushTarget.Operation.COMMIT;
        assertEquals(PutMessageStatus.PUT_OK, put(store, 1).get().status());
        assertFailStopped(store, "CommitRealTimeService");
        assertEquals(0, store.getMaxPhyOffset(), "readers never see bytes that were not committed");
        assertKeepsAbortMarker(store);
    }

    @Test
    void dispatcherErrorStopsDispatchAndFailStopsTheStore() throws Exception {
        AtomicInteger arrivals = new AtomicInteger();
        StoreConfig config = config(FlushDiskType.ASYNC_FLUSH).build();
        failStopLog.start();
        ((Logger) LoggerFactory.getLogger(FailStop.class)).addAppender(failStopLog);
        MessageStore store = MessageStore.open(config, StoreTestSupport.environment(clock, diskUsage));
        opened.add(store);
        store.setArrivingListener((topic, queueId, offset, tagsCode, storeTimestamp) -> {
            if (arrivals.incrementAndGet() == 2) {
                throw new IllegalStateException("injected fault in the arrival listener");
            }
        });
        store.load();
        store.start();
        assertEquals(PutMessageStatus.PUT_OK, put(store, 1).get().status());
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        put(store, 2).get();
        assertFailStopped(store, "ReputMessageService");
        assertNotNull(store.dispatchAlarm(), "dispatch stopped with an alarm");
        assertKeepsAbortMarker(store);
    }

    /**
     * A consume-queue file that cannot be created (here a file squats its topic's directory; in the field
     * "Too many open files") stops dispatch; from then on puts are refused instead of acknowledged unreadable.
     */
    @Test
    void aDispatcherThatCannotWriteMakesTheStoreRefusePuts() throws Exception {
        MessageStore store = MessageStore.open(config(FlushDiskType.ASYNC_FLUSH).build(),
            StoreTestSupport.environment(clock, diskUsage));
        opened.add(store);
        store.load();
        store.start();
        assertEquals(PutMessageStatus.PUT_OK, put(store, 1).get().status());
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        Path consumeQueues = root.resolve("consumequeue");
        Files.createDirectories(consumeQueues);
        Files.writeString(consumeQueues.resolve("Blocked"), "not a directory");
        store.asyncPutMessage(message("Blocked", 0, null, null, "x")).get();
        await().atMost(WAIT).until(() -> store.dispatchStoppedReason() != null);
        PutMessageResult refused = put(store, 2).get();
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, refused.status());
        assertFalse(refused.isOk());
        assertEquals(1, store.dispatchStoppedRefusals());
        assertEquals(1, store.getMaxOffsetInQueue("T", 0), "nothing acknowledged after dispatch stopped");
    }

    @Test
    void aResilientServiceCountsItsErrorsAndGoesOnWorking() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger();
        StoreEnvironment options = StoreTestSupport.environment(clock, diskUsage).withDiskUsage(dir -> {
            if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("injected fault in the disk usage source");
            }
            return diskUsage.get();
        });
        MessageStore store = MessageStore.open(config(FlushDiskType.ASYNC_FLUSH).build(), options);
        opened.add(store);
        store.load();
        store.start();
        failuresLeft.set(2);
        await().atMost(WAIT).until(() -> store.serviceErrorCounts().get("DiskSpaceMonitor") == 2);
        assertTrue(store.isWritable(), "a resilient service's error does not stop the store");
        assertFalse(store.isFailStopped());
        assertEquals(PutMessageStatus.PUT_OK, put(store, 1).get().status());

        diskUsage.set(0.99);
        await().atMost(WAIT).until(store::isDiskFull);   // the monitor still samples after its errors
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(store, 2).get().status());
        assertEquals(2, store.serviceErrorCount(), "nothing else failed");
        diskUsage.set(0.10);
        await().atMost(WAIT).until(() -> !store.isDiskFull());
        store.shutdown();
        assertFalse(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "a resilient error leaves a clean shutdown");
    }
}
