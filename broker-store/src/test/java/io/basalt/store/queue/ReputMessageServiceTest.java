package io.basalt.store.queue;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.basalt.store.flush.FailStop;
import io.basalt.store.index.IndexService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReputMessageServiceTest {
    @TempDir
    Path dir;
    private ConsumeQueueStore queues;
    private IndexService index;
    private final FakeLog log = new FakeLog(1024);
    private final List<Long> arrived = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        queues = ConsumeQueueStore.open(dir.resolve("consumequeue"), 10 * 20);
        index = IndexService.open(dir.resolve("index"), 64, 256, Clock.systemDefaultZone());
    }

    @AfterEach
    void close() throws IOException {
        queues.close();
        index.close();
    }

    private ReputMessageService reput(long from) {
        // an arrival is told only once the entry is readable (long polling must not miss it)
        return new ReputMessageService(log, queues, index,
                (t, q, o, tags, time) -> arrived.add(queues.find(t, q).maxOffset() > o ? o : -1), from, 1000,
                new FailStop());
    }

    @Test
    void dispatchesEveryRecordAcrossFilesIntoQueuesAndIndex() {
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            offsets.add(log.append(FakeLog.message("T", i % 2, "tag" + (i % 3), "k" + i, "U" + i)));
        }
        assertTrue(log.maxOffset() > 3 * 1024, "the records span several files");
        ReputMessageService reput = reput(0);
        assertEquals(30, reput.doWork());
        assertEquals(log.maxOffset(), reput.reputFromOffset());
        assertNull(reput.alarm());

        ConsumeQueue q0 = queues.find("T", 0);
        ConsumeQueue q1 = queues.find("T", 1);
        assertEquals(15, q0.maxOffset());
        assertEquals(15, q1.maxOffset());
        for (int i = 0; i < 30; i++) {
            ConsumeQueueEntry e = (i % 2 == 0 ? q0 : q1).entry(i / 2);
            assertEquals(offsets.get(i), e.physicalOffset());
            assertEquals(("tag" + (i % 3)).hashCode(), e.tagsCode());
        }
        assertEquals(List.of(offsets.get(7)), index.queryOffset("T", "k7", 10, 0, Long.MAX_VALUE).physicalOffsets());
        assertEquals(List.of(offsets.get(8)), index.queryOffset("T", "U8", 10, 0, Long.MAX_VALUE).physicalOffsets());
        assertEquals(30, arrived.size());
        assertTrue(arrived.stream().allMatch(o -> o >= 0), "every arrival was visible when told");
        assertEquals(0, reput.doWork());
    }

    @Test
    void nothingBeyondTheDispatchLimitIsVisible() {
        long first = log.append(FakeLog.message("T", 0, null, null, null));
        long second = log.append(FakeLog.message("T", 0, null, null, null));
        log.limit(second); // e.g. the flushed offset under SYNC_FLUSH
        ReputMessageService reput = reput(0);
        assertEquals(1, reput.doWork());
        assertEquals(1, queues.find("T", 0).maxOffset());
        assertEquals(second, reput.reputFromOffset());
        log.limit(second + (second - first) / 2); // mid-record: still waits
        assertEquals(0, reput.doWork());
        log.limit(Long.MAX_VALUE);
        assertEquals(1, reput.doWork());
        assertEquals(2, queues.find("T", 0).maxOffset());
    }

    @Test
    void anUndecodableRecordStopsDispatchWithAnAlarmInsteadOfSkippingIt() {
        log.append(FakeLog.message("T", 0, null, null, null));
        long bad = log.append(FakeLog.message("T", 0, null, null, null));
        log.append(FakeLog.message("T", 0, null, null, null));
        log.file(0).putInt((int) bad + 4, 0x12345678); // destroy the magic code
        ReputMessageService reput = reput(0);
        assertEquals(1, reput.doWork());
        assertEquals(bad, reput.reputFromOffset());
        assertNotNull(reput.alarm());
        assertTrue(reput.alarm().contains(Long.toString(bad)), reput.alarm());
        assertEquals(0, reput.doWork());
        assertEquals(1, queues.find("T", 0).maxOffset());
    }

    @Test
    void aQueueThatLostItsTailIsRefilledByRewinding() throws IOException {
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            offsets.add(log.append(FakeLog.message(i % 3 == 0 ? "A" : "B", 0, null, null, null)));
        }
        ReputMessageService first = reput(0);
        first.doWork();
        // queue A loses its last two entries (offsets 6 and 9 of the log), B keeps all of its own
        queues.find("A", 0).truncateByMaxPhysicOffset(offsets.get(6));
        assertEquals(2, queues.find("A", 0).maxOffset());
        long a4 = log.append(FakeLog.message("A", 0, null, null, null));

        ReputMessageService reput = reput(first.reputFromOffset()); // resumes after the lost entries
        while (reput.doWork() > 0) {
            assertNull(reput.alarm());
        }
        ConsumeQueue a = queues.find("A", 0);
        assertEquals(5, a.maxOffset());
        assertEquals(offsets.get(6), a.entry(2).physicalOffset());
        assertEquals(offsets.get(9), a.entry(3).physicalOffset());
        assertEquals(a4, a.entry(4).physicalOffset());
        assertEquals(8, queues.find("B", 0).maxOffset());
    }

    @Test
    void theServiceThreadDispatchesPromptlyWhenWokenAfterAnAppend() {
        ReputMessageService reput = new ReputMessageService(log, queues, index, null, 0, 60_000, new FailStop());
        reput.start();
        try {
            reput.wakeup();
            log.append(FakeLog.message("T", 3, null, null, null));
            reput.wakeup();
            await().atMost(Duration.ofSeconds(10)).until(() -> queues.find("T", 3) != null && queues.find("T", 3).maxOffset() == 1);
        } finally {
            reput.shutdown();
        }
    }
    @Test
    void anErrorOfARoundStopsDispatchWithAnAlarmBeforeItGoesToTheErrorPolicy() {
        log.append(FakeLog.message("T", 0, "t", "k", "U"));
        DispatchSource sigbus = new DispatchSource() {
            @Override
            public long dispatchLimit() {
                return log.dispatchLimit();
            }

            @Override
            public long minOffset() {
                return log.minOffset();
            }

            @Override
            public long nextFileOffset(long offset) {
                return log.nextFileOffset(offset);
            }

            @Override
            public View read(long offset) {
                throw new InternalError("a fault occurred in an unsafe memory access operation");
            }
        };
        ReputMessageService reput = new ReputMessageService(sigbus, queues, index, null, 0, 10, new FailStop());
        // the Error goes on to ServiceThread, which hands it to the error policy (the fail-stop) and ends the thread
        assertThrows(InternalError.class, reput::doWork);
        assertNotNull(reput.alarm(), "the dispatch alarm names the error");
        assertTrue(reput.alarm().contains("InternalError"), reput.alarm());
        assertEquals(0, reput.doWork(), "nothing is dispatched after it");
        assertEquals(0, reput.reputFromOffset());
    }
}
