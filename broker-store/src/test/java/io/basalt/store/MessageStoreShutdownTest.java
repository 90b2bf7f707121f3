package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.recovery.AbortMarker;
import io.basalt.store.recovery.StoreCheckpoint;

/** The store's shutdown order, which it owns, and what a failed step leaves for the next start. */
class MessageStoreShutdownTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;
    private final List<MessageStore> opened = new ArrayList<>();
    private final StoreTestSupport.SettableClock clock = new StoreTestSupport.SettableClock(Instant.now());
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);

    @AfterEach
    void shutdownAll() {
        for (MessageStore s : opened) {
            s.shutdown();
        }
    }

    private MessageStore start(FlushDiskType type) throws IOException {
        MessageStore store = MessageStore.open(StoreTestSupport.config(root, type), StoreTestSupport.environment(clock, diskUsage));
        opened.add(store);
        store.load();
        store.start();
        return store;
    }

    private static long putSome(MessageStore store, int count) {
        long lastStoreTimestamp = 0;
        for (int i = 0; i < count; i++) {
            PutMessageResult r = store.asyncPutMessage(message("T", i % 2, "tag", "k" + i, "body-" + i)).join();
            assertEquals(PutMessageStatus.PUT_OK, r.status());
            lastStoreTimestamp = r.appendResult().storeTimestamp();
        }
        return lastStoreTimestamp;
    }

    @ParameterizedTest
    @EnumSource(FlushDiskType.class)
    void shutdownRunsEveryStepInOrderAndDeletesTheMarkerLast(FlushDiskType type) throws IOException {
        MessageStore store = start(type);
        long lastStored = putSome(store, 20);
        List<String> steps = new CopyOnWriteArrayList<>();
        List<Boolean> markerAfter = new CopyOnWriteArrayList<>();
        store.onShutdownStep(step -> {
            steps.add(step);
            markerAfter.add(Files.exists(root.resolve(AbortMarker.FILE_NAME)));
        });
        store.shutdown();

        assertEquals(List.of(MessageStore.STOP_PUTS, MessageStore.DRAIN_DISPATCHER, MessageStore.STOP_COMMIT_LOG,
                MessageStore.CLOSE_QUEUES, MessageStore.CLOSE_INDEX, MessageStore.FLUSH_CHECKPOINT,
                MessageStore.DELETE_ABORT_MARKER, MessageStore.UNMAP), steps);
        assertEquals(List.of(true, true, true, true, true, true, false, false), markerAfter,
                "the marker is there until its own step, and that comes after every flush");
        assertFalse(Files.exists(root.resolve(AbortMarker.FILE_NAME)));
        try (StoreCheckpoint cp = StoreCheckpoint.open(root.resolve(StoreCheckpoint.FILE_NAME))) {
            // the queues' last flush at shutdown reached the checkpoint before it was written and closed
            assertEquals(lastStored, cp.logicsMsgTimestamp(), "logicsMsgTimestamp of the last dispatched record");
            assertEquals(store.commitLog().flushedOffset(), cp.physicRecoveryOffset());
        }

        MessageStore reopened = start(type);
        assertFalse(reopened.recoveredFromCrash(), "a clean shutdown leads to a normal start");
        assertEquals(10, reopened.getMaxOffsetInQueue("T", 0));
        assertEquals(10, reopened.getMaxOffsetInQueue("T", 1));
    }

    @Test
    void aFailedQueueCloseKeepsTheMarkerSoTheNextStartRecoversFromACrash() throws IOException {
        MessageStore store = start(FlushDiskType.SYNC_FLUSH);
        putSome(store, 20);
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T", 1) == 10);
        List<String> steps = new CopyOnWriteArrayList<>();
        store.onShutdownStep(step -> {
            steps.add(step);
            if (step.equals(MessageStore.CLOSE_QUEUES)) {
                throw new IOException("Input/output error (injected while closing the consume queues)");
            }
        });
        store.shutdown();

        assertTrue(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "a failed step leaves the abort marker");
        assertFalse(steps.contains(MessageStore.DELETE_ABORT_MARKER));
        assertEquals(MessageStore.UNMAP, steps.get(steps.size() - 1), "the steps after the failed one still ran");

        MessageStore reopened = start(FlushDiskType.SYNC_FLUSH);
        assertTrue(reopened.recoveredFromCrash(), "the next start takes the crash-recovery path");
        assertEquals(10, reopened.getMaxOffsetInQueue("T", 0));
        assertEquals(10, reopened.getMaxOffsetInQueue("T", 1));
        reopened.shutdown();
        assertFalse(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "after recovery a clean shutdown is clean again");
    }

    @Test
    void aStoreThatNeverLoadedKeepsTheMarkerACrashLeft() throws IOException {
        MessageStore store = start(FlushDiskType.ASYNC_FLUSH);
        putSome(store, 5);
        store.shutdown();
        Files.createFile(root.resolve(AbortMarker.FILE_NAME));   // and then the broker crashed

        MessageStore notLoaded = MessageStore.open(StoreTestSupport.config(root, FlushDiskType.ASYNC_FLUSH),
                StoreTestSupport.environment(clock, diskUsage));
        notLoaded.shutdown();
        assertTrue(Files.exists(root.resolve(AbortMarker.FILE_NAME)), "the next start must still run a crash recovery");
        assertTrue(start(FlushDiskType.ASYNC_FLUSH).recoveredFromCrash());
    }
}
