package io.basalt.store.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.store.index.IndexService;
import io.basalt.store.recovery.StoreCheckpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a periodic flush round forces, as RocketMQ: a queue file once enough pages were written to it,
 * all of them each thorough interval, full index files only; and the checkpoint's logicsMsgTimestamp
 * moves only when every written queue byte was forced.
 */
class FlushConsumeQueueServiceTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int LEAST_PAGES = 2;
    private static final long THOROUGH_MS = 60_000;

    @TempDir
    Path dir;
    private final AtomicLong nanos = new AtomicLong();
    private ConsumeQueueStore queues;
    private IndexService index;
    private StoreCheckpoint checkpoint;

    @AfterEach
    void close() throws IOException {
        if (index != null) {
            index.close();
        }
        if (queues != null) {
            queues.close();
        }
        if (checkpoint != null) {
            checkpoint.close();
        }
    }

    private FlushConsumeQueueService service(long committedStoreTimestamp) throws IOException {
        queues = queues != null ? queues : ConsumeQueueStore.open(dir.resolve("consumequeue"), 1000 * ConsumeQueueEntry.SIZE);
        checkpoint = checkpoint != null ? checkpoint : StoreCheckpoint.open(dir.resolve("checkpoint"));
        return new FlushConsumeQueueService(queues, index, 1000, LEAST_PAGES, THOROUGH_MS, checkpoint,
            () -> committedStoreTimestamp, nanos::get);
    }

    private static void fill(ConsumeQueue queue, int entries) throws IOException {
        for (long i = 0; i < entries; i++) {
            assertEquals(ConsumeQueue.PutResult.APPENDED, queue.append(100 * i, 100, i, i));
        }
        queue.commit();
    }

    @Test
    void aQueueWithFewPagesWrittenWaitsForTheThoroughRoundAndOnlyThatRecordsLogicsTimestamp() throws IOException {
        FlushConsumeQueueService service = service(T0);
        ConsumeQueue quiet = queues.findOrCreate("Quiet", 0);
        ConsumeQueue busy = queues.findOrCreate("Busy", 0);
        fill(quiet, 1);
        fill(busy, 2 * 4096 / ConsumeQueueEntry.SIZE);   // two pages

        service.doWork();
        assertFalse(busy.hasUnforcedWrites(), "two pages written: forced");
        assertTrue(quiet.hasUnforcedWrites(), "one entry: left for a later round");
        assertEquals(0, checkpoint.logicsMsgTimestamp(), "not every written entry is on disk yet");

        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(THOROUGH_MS));
        service.doWork();
        assertFalse(quiet.hasUnforcedWrites(), "the thorough round forces every written file");
        assertEquals(T0, checkpoint.logicsMsgTimestamp());
    }

    @Test
    void withLeastPagesZeroEveryRoundForcesEverything() throws IOException {
        queues = ConsumeQueueStore.open(dir.resolve("consumequeue"), 1000 * ConsumeQueueEntry.SIZE);
        checkpoint = StoreCheckpoint.open(dir.resolve("checkpoint"));
        FlushConsumeQueueService service = new FlushConsumeQueueService(queues, null, 1000, 0, THOROUGH_MS, checkpoint,
            () -> T0, nanos::get);
        ConsumeQueue quiet = queues.findOrCreate("Quiet", 0);
        fill(quiet, 1);
        service.doWork();
        assertFalse(quiet.hasUnforcedWrites());
        assertEquals(T0, checkpoint.logicsMsgTimestamp());
    }

    @Test
    void theOpenIndexFileIsLeftToTheKernelAFullOneIsForcedAndShutdownForcesAll() throws IOException {
        index = IndexService.open(dir.resolve("index"), 4, 4, Clock.fixed(Instant.ofEpochMilli(T0), ZoneId.systemDefault()));
        for (int i = 0; i < 5; i++) {   // a full file of 3 entries (the first item slot is unused), then an open one
            index.buildIndex(new DispatchRequest("T", 0, 100L * i, 100, 0, T0 + i, i, "k" + i, null, 0));
        }
        assertEquals(2, index.fileCount());
        assertEquals(2, index.unforcedFileCount());
        FlushConsumeQueueService service = service(T0);

        service.doWork();
        assertEquals(1, index.unforcedFileCount(), "the full file is forced, the open one is not");
        assertEquals(index.lastFullFileEndTimestamp(), checkpoint.indexMsgTimestamp());

        service.flushAndRecord();
        assertEquals(0, index.unforcedFileCount(), "shutdown forces the open file too");
    }
}
