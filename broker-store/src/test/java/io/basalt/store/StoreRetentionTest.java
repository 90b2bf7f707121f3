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
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.StoreFiles;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention with a settable clock and a settable disk usage. */
class StoreRetentionTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration HOURS_73 = Duration.ofHours(73);

    @TempDir
    Path root;
    private final Instant realNow = Instant.now();
    private final StoreTestSupport.SettableClock clock =
            new StoreTestSupport.SettableClock(StoreTestSupport.nextHourUtc(realNow, 12));
    private final AtomicReference<Double> diskUsage = new AtomicReference<>(0.10);
    private MessageStore store;

    @BeforeEach
    void start() throws IOException {
        store = MessageStore.open(StoreTestSupport.config(root, FlushDiskType.ASYNC_FLUSH), StoreTestSupport.environment(clock, diskUsage));
        store.load();
        store.start();
        for (int i = 0; i < 2400; i++) {
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(message("T", 0, null, "k" + i, "m" + i)).join().status());
        }
        long end = store.getMaxPhyOffset();
        await().atMost(WAIT).until(() -> store.getReputFromOffset() == end);
        assertTrue(lastFileStart() >= 2L * StoreTestSupport.COMMIT_LOG_FILE_SIZE, "several CommitLog files");
    }

    @AfterEach
    void shutdown() {
        store.shutdown();
        assertEquals(0, MappedFile.liveMappings(), "every mapping is released");
    }

    private long commitLogFiles() throws IOException {
        try (Stream<Path> s = Files.list(root.resolve("commitlog"))) {
            return s.count();
        }
    }

    private long lastFileStart() {
        long max = store.getMaxPhyOffset();
        return max - max % StoreTestSupport.COMMIT_LOG_FILE_SIZE;
    }

    private long files(String dir) throws IOException {
        try (Stream<Path> s = Files.walk(root.resolve(dir))) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    private void sampleDisk(double used) {
        diskUsage.set(used);
        store.diskMonitor().doWork();
    }

    @Test
    void expiredFilesGoOnlyAtDeleteWhenOrAboveTheMaxUsedRatioAndTheQueuesFollow() throws IOException {
        long logFiles = commitLogFiles();
        long queueFiles = files("consumequeue");
        long indexFiles = files("index");
        assertTrue(indexFiles > 1, "several index files: " + indexFiles);

        assertEquals(0, store.cleanService().clean(), "nothing has expired yet");
        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 12));
        assertEquals(0, store.cleanService().clean(), "expired, but 12:00 is not the deleteWhen hour");

        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 4));
        assertTrue(store.cleanService().clean() > 0);
        assertEquals(lastFileStart(), store.getMinPhyOffset(), "all but the newest CommitLog file");
        long min = store.getMinPhyOffset();
        assertTrue(min > 0);
        assertTrue(files("consumequeue") < queueFiles, "queue files below the log's min offset are deleted");
        assertTrue(files("index") < indexFiles, "index files below the log's min offset are deleted");

        long minQueueOffset = store.getMinOffsetInQueue("T", 0);
        assertTrue(minQueueOffset > 0);
        assertTrue(store.getCommitLogOffsetInQueue("T", 0, minQueueOffset) >= min);
        try (GetMessageResult r = store.getMessage("g", "T", 0, 0, 32, null)) {
            assertEquals(GetMessageStatus.OFFSET_TOO_SMALL, r.status());
            assertEquals(minQueueOffset, r.nextBeginOffset());
        }
        try (GetMessageResult r = store.getMessage("g", "T", 0, minQueueOffset, 32, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals("m" + minQueueOffset, new String(MessageRecordDecoder.decode(r.messages().get(0).buffer().duplicate()).body()));
        }
        assertTrue(logFiles > commitLogFiles());
    }

    @Test
    void retentionSettingsChangedWhileRunningApplyFromTheNextRound() throws IOException {
        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 12));
        sampleDisk(0.60);
        assertEquals(0, store.cleanService().clean(), "12:00 is not the deleteWhen hour, 60% is below the 75% ratio");

        store.updateRetention(StoreConfig.builder().storePathRootDir(root.toString()).diskMaxUsedSpaceRatio(50).build());
        assertTrue(store.cleanService().clean() > 0, "above the new 50% ratio expired files go at any hour");
    }

    @Test
    void aDeleteWhenChangedWhileRunningAppliesFromTheNextRound() throws IOException {
        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 12));
        assertEquals(0, store.cleanService().clean());

        store.updateRetention(StoreConfig.builder().storePathRootDir(root.toString()).deleteWhen("12").build());
        assertTrue(store.cleanService().clean() > 0);
        assertEquals(lastFileStart(), store.getMinPhyOffset());
    }

    @Test
    void aboveTheMaxUsedRatioExpiredFilesGoAtAnyHour() throws IOException {
        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 12));
        sampleDisk(0.76);
        assertTrue(store.cleanService().clean() > 0);
        assertEquals(lastFileStart(), store.getMinPhyOffset());
    }

    @Test
    void aboveTheForcibleRatioUnexpiredFilesGoToo() throws IOException {
        sampleDisk(0.80);
        assertEquals(0, store.cleanService().clean(), "above 75% only expired files go");
        sampleDisk(0.86);
        assertTrue(store.cleanService().clean() > 0);
        assertEquals(lastFileStart(), store.getMinPhyOffset());
    }

    @Test
    void aHeldSliceSurvivesDeletionOfItsFileUntilReleased() throws IOException {
        Path firstFile = root.resolve("commitlog").resolve(StoreFiles.fileName(0));
        GetMessageResult held = store.getMessage("g", "T", 0, 0, 1, null);
        assertEquals(GetMessageStatus.FOUND, held.status());
        sampleDisk(0.86);
        store.cleanService().clean();
        assertTrue(Files.exists(firstFile), "the held file is not deleted");
        assertEquals(0, store.getMinPhyOffset());
        assertEquals("m0", new String(MessageRecordDecoder.decode(held.messages().get(0).buffer().duplicate()).body()));

        held.close();
        assertTrue(store.cleanService().clean() > 0);
        assertFalse(Files.exists(firstFile));
    }

    @Test
    void deleteExpiredCommitLogDeletesExpiredFilesOutsideTheDeleteWhenHoursForTwentyRounds() {
        store.requestExpiredCommitLogDeletion();
        for (int i = 0; i < StoreCleanService.MANUAL_ROUNDS; i++) {
            assertEquals(0, store.cleanService().clean(), "nothing has expired: fileReservedTime still holds");
        }
        assertEquals(0, store.getMinPhyOffset());
        assertEquals(0, store.expiredCommitLogDeletionRoundsLeft(), "each round used one");

        clock.set(StoreTestSupport.nextHourUtc(realNow.plus(HOURS_73), 12));
        assertEquals(0, store.cleanService().clean(), "expired, but 12:00 is not the deleteWhen hour");
        store.requestExpiredCommitLogDeletion();
        // the service thread, woken, may run the first round itself (and then waits cleanResourceInterval, 10 s)
        assertTrue(store.expiredCommitLogDeletionRoundsLeft() >= StoreCleanService.MANUAL_ROUNDS - 1);
        store.cleanService().clean();
        await().atMost(WAIT).until(() -> store.getMinPhyOffset() == lastFileStart());
    }

    @Test
    void cleanExpiredConsumeQueuesDeletesTheQueueFilesBelowTheCommitLogAtOnce() throws IOException {
        long queueFiles = files("consumequeue");
        // the CommitLog's head goes, as by a cleaning round, but the queues are left for the request
        assertTrue(store.commitLog().deleteExpiredFiles(0, 0, 0, true) > 0);
        long min = store.getMinPhyOffset();
        assertTrue(min > 0);
        assertEquals(queueFiles, files("consumequeue"));

        assertTrue(store.cleanExpiredConsumeQueues() > 0);
        assertTrue(files("consumequeue") < queueFiles, "queue files below the log's min offset are deleted");
        long minQueueOffset = store.getMinOffsetInQueue("T", 0);
        assertTrue(store.getCommitLogOffsetInQueue("T", 0, minQueueOffset) >= min);
        assertEquals(0, store.cleanExpiredConsumeQueues(), "nothing left to delete");
    }
}
