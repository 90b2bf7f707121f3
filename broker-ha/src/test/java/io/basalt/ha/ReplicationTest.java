package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.ha.slave.HAClient;
import io.basalt.store.FlushDiskType;
import io.basalt.store.GetMessageResult;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.SelectedBuffer;

/** Two stores with HA on loopback: streaming, catch-up, restart, truncation. */
class ReplicationTest {
    @TempDir
    Path dir;

    private static void awaitCaughtUp(HANode master, HANode slave) {
        await().atMost(ofSeconds(60)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
    }

    private static void assertSameLog(HANode master, HANode slave) throws Exception {
        long min = master.store.getMinPhyOffset();
        long max = master.store.getMaxPhyOffset();
        assertEquals(min, slave.store.getMinPhyOffset(), "slave starts where the master's oldest file starts");
        assertArrayEquals(master.commitLogBytes(min, max), slave.commitLogBytes(min, max));
    }

    @Test
    void emptySlaveOfATrimmedMasterStartsAtItsOldestRetainedOffset() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("TopicA", 0, 3000, 1024);
            // a reader holding the second file stops retention there: only the first file goes
            SelectedBuffer held = master.store.replicatedLog().select(HANode.FILE_SIZE);
            try {
                // the dispatcher may still be reading the first file, which also keeps it
                await().atMost(ofSeconds(30)).until(() -> master.store.deleteCommitLogFilesNow(1000) > 0);
            } finally {
                held.release();
            }
            long min = master.store.getMinPhyOffset();
            assertEquals(HANode.FILE_SIZE, min);
            assertTrue(master.store.getMaxPhyOffset() > 2L * HANode.FILE_SIZE, "older files than the last are kept");
            try (HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(HANode.config(), master.haAddress())) {
                awaitCaughtUp(master, slave);
                assertEquals(min, slave.slave.lastRequestedOffset());
                assertSameLog(master, slave);
                assertEquals(master.store.getMaxPhyOffset(), master.master.slaves().get(0).ackOffset());
                // the slave's queues start where its log does, at the first retained message
                await().atMost(ofSeconds(30)).until(() -> slave.store.getMaxOffsetInQueue("TopicA", 0) == 750);
                long first = slave.store.getMinOffsetInQueue("TopicA", 0);
                assertTrue(first > 0, "no entry for a deleted file");
                GetMessageResult read = slave.store.getMessage("g", "TopicA", 0, first, 8, null);
                assertEquals(8, read.messageCount());
                read.close();
            }
        }
    }

    @Test
    void emptySlaveWithSyncFromLastFileStartsAtTheStartOfTheMastersLastFile() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("TopicA", 0, 3000, 1024);
            long masterMax = master.store.getMaxPhyOffset();
            long lastFileStart = masterMax - masterMax % HANode.FILE_SIZE;
            assertTrue(lastFileStart >= 2L * HANode.FILE_SIZE, "files before the last one exist");
            HAConfig fromLastFile = HANode.config().toBuilder().syncFromLastFile(true).build();
            try (HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(fromLastFile, master.haAddress())) {
                awaitCaughtUp(master, slave);
                assertEquals(lastFileStart, slave.slave.lastRequestedOffset());
                assertEquals(lastFileStart, slave.store.getMinPhyOffset(), "nothing older than the master's last file");
                assertArrayEquals(master.commitLogBytes(lastFileStart, masterMax), slave.commitLogBytes(lastFileStart, masterMax));
            }
        }
    }

    @Test
    void lateSlaveCatchesUpFromZeroAcrossRolloversByteIdentical() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("TopicA", 0, 3000, 1024);
            assertTrue(master.store.getMaxPhyOffset() > 3L * HANode.FILE_SIZE, "several file rollovers");
            try (HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(HANode.config(), master.haAddress())) {
                awaitCaughtUp(master, slave);
                assertEquals(0, slave.slave.lastRequestedOffset());
                master.putMany("TopicA", 3000, 500, 1024);
                awaitCaughtUp(master, slave);
                assertSameLog(master, slave);
                // the slave's dispatcher built its queues from the replicated log: it serves reads
                await().atMost(ofSeconds(30)).until(() -> slave.store.getMaxOffsetInQueue("TopicA", 0) == 875);
                GetMessageResult read = slave.store.getMessage("g", "TopicA", 1, 0, 32, null);
                assertEquals(32, read.messageCount());
                read.close();
                assertEquals(1, master.master.slaves().size());
                assertEquals(master.store.getMaxPhyOffset(), master.master.slaves().get(0).ackOffset());
            }
        }
    }

    @Test
    void restartedSlaveResumesFromItsOwnOffset() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("TopicA", 0, 1500, 1024);
            long before;
            try (HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(HANode.config(), master.haAddress())) {
                awaitCaughtUp(master, slave);
                before = slave.store.getMaxPhyOffset();
            }
            master.putMany("TopicA", 1500, 1500, 1024);
            try (HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(HANode.config(), master.haAddress())) {
                awaitCaughtUp(master, slave);
                assertEquals(before, slave.slave.lastRequestedOffset(), "resumed from its own end, not from 0");
                assertSameLog(master, slave);
                await().atMost(ofSeconds(30)).until(() -> slave.store.getMaxOffsetInQueue("TopicA", 2) == 750);
            }
        }
    }

    @Test
    void syncMasterFutureCompletesOnlyAfterTheSlaveHasTheBytes() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.SYNC_FLUSH).asMaster(HANode.config(), true);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                 .asSlave(HANode.config(), master.haAddress())) {
            await().atMost(ofSeconds(10)).until(() -> slave.slave.state() == HAClient.State.TRANSFER);
            List<CompletableFuture<long[]>> done = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                done.add(master.store.asyncPutMessage(HANode.message("TopicS", i % 4, "s-" + i, 1024, true))
                    .thenApply(r -> new long[] {r.status().ordinal(), r.appendResult().nextOffset(),
                        slave.store.getMaxPhyOffset(), master.store.flushedOffset()}));
            }
            for (CompletableFuture<long[]> f : done) {
                long[] r = f.join();
                assertEquals(PutMessageStatus.PUT_OK.ordinal(), r[0]);
                assertTrue(r[2] >= r[1], "slave held " + r[2] + " when the put up to " + r[1] + " completed");
                assertTrue(r[3] >= r[1], "SYNC_FLUSH and SYNC_MASTER compose: flushed " + r[3] + " < " + r[1]);
            }
        }
    }

    @Test
    void divergentTailIsTruncatedAfterMasterChange() throws Exception {
        HANode a = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
        HANode b = HANode.open(dir.resolve("b"), FlushDiskType.ASYNC_FLUSH);
        try {
            a.putMany("TopicD", 0, 1200, 1024);
            b.asSlave(HANode.config(), a.haAddress());
            awaitCaughtUp(a, b);
            long common = b.store.getMaxPhyOffset();
            b.slave.shutdown();
            b.slave = null;
            // A goes on alone: its tail [common, ...) never reaches B
            a.putMany("TopicD", 1200, 300, 1024);
            a.master.shutdown();
            a.master = null;
            // B is promoted (epoch 2 starts at its end) and takes different writes
            b.store.replicatedLog().alignQueueOffsetsWithLog();
            assertEquals(2, b.epochs.startEpoch(b.store.getMaxPhyOffset()));
            b.asMaster(HANode.config(), false);
            b.putMany("TopicD", 5000, 100, 700);
            // A comes back as B's slave: its tail after `common` diverges and is cut
            a.asSlave(HANode.config(), b.haAddress());
            awaitCaughtUp(b, a);
            assertEquals(common, a.slave.lastRequestedOffset());
            assertSameLog(b, a);
            assertEquals(b.epochs.entries(), a.epochs.entries());
            await().atMost(ofSeconds(30)).until(() -> a.store.getMaxOffsetInQueue("TopicD", 0)
                == b.store.getMaxOffsetInQueue("TopicD", 0));
            // a message A wrote alone is gone from its queues; B's are there
            assertEquals(300 + 25, a.store.getMaxOffsetInQueue("TopicD", 0));
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void slaveRefusesADeposedMaster() throws Exception {
        try (HANode old = HANode.open(dir.resolve("old"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)) {
            slave.epochs.replaceWith(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 0)));
            old.putMany("TopicX", 0, 10, 100);
            slave.asSlave(HANode.config(), old.haAddress());
            await().atMost(ofSeconds(10)).until(old.master::isFenced);
            assertEquals(0, slave.store.getMaxPhyOffset(), "nothing taken from a master with an older epoch");
        }
    }

    @Test
    void putResultIsStoredWhenNoSlaveWaits() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), true)) {
            PutMessageResult r = master.put("TopicN", 0, 100);
            assertEquals(PutMessageStatus.SLAVE_NOT_AVAILABLE, r.status(), "no slave at all: answered at once");
            assertEquals(r.appendResult().nextOffset(), master.store.getMaxPhyOffset(), "stored on the master");
        }
    }
}
