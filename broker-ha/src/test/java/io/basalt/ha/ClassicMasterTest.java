package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;

/**
 * A Basalt master serves a RocketMQ slave in the classic protocol; a raw socket plays the slave, sending
 * bare 8-byte reports and reading 12-byte-header frames.
 */
class ClassicMasterTest {
    @TempDir
    Path dir;

    /** A classic slave: connected, its first report sent. */
    private record ClassicSlave(Socket socket, DataOutputStream out, DataInputStream in) implements AutoCloseable {
        static ClassicSlave connect(HANode master, long firstReport) throws IOException {
            Socket s = new Socket("127.0.0.1", master.master.localPort());
            s.setSoTimeout(10_000);
            ClassicSlave slave = new ClassicSlave(s, new DataOutputStream(s.getOutputStream()),
                new DataInputStream(s.getInputStream()));
            slave.report(firstReport);
            return slave;
        }

        void report(long offset) throws IOException {
            out.writeLong(offset);
            out.flush();
        }

        /** Reads data frames until the stream reaches {@code end}; checks they are contiguous from {@code from}. */
        byte[] readUntil(long from, long end, int maxBody) throws IOException {
            byte[] all = new byte[(int) (end - from)];
            long at = from;
            while (at < end) {
                long offset = in.readLong();
                int size = in.readInt();
                if (size == 0) {
                    continue;
                }
                assertEquals(at, offset, "frames are contiguous");
                assertTrue(size <= maxBody, "a frame's body is at most haTransferBatchSize");
                in.readFully(all, (int) (at - from), size);
                at += size;
            }
            return all;
        }

        void assertClosedByMaster() throws IOException {
            while (true) {
                try {
                    if (in.read() < 0) {
                        return;
                    }
                } catch (IOException reset) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void anEmptyClassicSlaveGetsTheWholeLogInFramesOfAtMostTheBatchSize() throws Exception {
        HAConfig config = TestHAConfig.builder().haTransferBatchSize(4096).build();
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(config, false)) {
            master.putMany("T", 0, 50, 300);
            long max = master.store.getMaxPhyOffset();
            try (ClassicSlave slave = ClassicSlave.connect(master, 0)) {
                assertArrayEquals(master.commitLogBytes(0, max), slave.readUntil(0, max, 4096));
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
                SlaveStatus status = master.master.slaves().get(0);
                assertEquals("CLASSIC", status.protocol());
                assertEquals(-1, status.brokerId());
                slave.report(max);
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().get(0).ackOffset() == max);
            }
        }
    }

    @Test
    void framesNeverSpanTwoFiles() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("T", 0, 3000, 1000);
            long max = master.store.getMaxPhyOffset();
            assertTrue(max > 2L * HANode.FILE_SIZE);
            try (ClassicSlave slave = ClassicSlave.connect(master, 0)) {
                long at = 0;
                while (at < max) {
                    long offset = slave.in().readLong();
                    int size = slave.in().readInt();
                    slave.in().skipNBytes(size);
                    if (size == 0) {
                        continue;
                    }
                    assertEquals(offset / HANode.FILE_SIZE, (offset + size - 1) / HANode.FILE_SIZE,
                        "frame [" + offset + ", " + (offset + size) + ") stays in one file");
                    at = offset + size;
                }
            }
        }
    }

    @Test
    void anEmptyClassicSlaveStartsAtTheLastFileWithSyncFromLastFile() throws Exception {
        HAConfig config = TestHAConfig.builder().syncFromLastFile(true).build();
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(config, false)) {
            master.putMany("T", 0, 1500, 1000);
            long max = master.store.getMaxPhyOffset();
            long lastFile = max - max % HANode.FILE_SIZE;
            assertTrue(lastFile > 0);
            try (ClassicSlave slave = ClassicSlave.connect(master, 0)) {
                assertArrayEquals(master.commitLogBytes(lastFile, max), slave.readUntil(lastFile, max, 32768));
                // it still reports 0 until its first chunk is applied: not a broken peer
                slave.report(0);
                slave.report(max);
                await().atMost(ofSeconds(10)).until(() -> !master.master.slaves().isEmpty()
                    && master.master.slaves().get(0).ackOffset() == max);
            }
        }
    }

    @Test
    void aSlaveWithDataGetsWhatFollowsItsReport() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            long middle = master.putMany("T", 0, 20, 200).get(9).appendResult().nextOffset();
            long max = master.store.getMaxPhyOffset();
            try (ClassicSlave slave = ClassicSlave.connect(master, middle)) {
                assertArrayEquals(master.commitLogBytes(middle, max), slave.readUntil(middle, max, 32768));
            }
        }
    }

    @Test
    void aRequestOutsideTheMastersLogIsRefused() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("T", 0, 5, 200);
            try (ClassicSlave slave = ClassicSlave.connect(master, master.store.getMaxPhyOffset() + 1)) {
                slave.assertClosedByMaster();
            }
            assertTrue(master.master.slaves().isEmpty());
        }
    }

    @Test
    void heartbeatsCarryTheNextOffset() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("T", 0, 5, 200);
            long max = master.store.getMaxPhyOffset();
            try (ClassicSlave slave = ClassicSlave.connect(master, max)) {
                // caught up: the first frame is a heartbeat after haSendHeartbeatInterval
                assertEquals(max, slave.in().readLong());
                assertEquals(0, slave.in().readInt());
            }
        }
    }

    @Test
    void aClassicSlavesAckCompletesASyncMastersPut() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), true);
             ClassicSlave slave = ClassicSlave.connect(master, 0)) {
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
            CompletableFuture<PutMessageResult> put = master.store.asyncPutMessage(HANode.message("T", 0, "x", 100, true));
            long offset = slave.in().readLong();
            int size = slave.in().readInt();
            slave.in().skipNBytes(size);
            assertEquals(0, offset);
            assertTrue(!put.isDone(), "the put waits for the slave");
            slave.report(size);
            assertEquals(PutMessageStatus.PUT_OK, put.get().status());
        }
    }

    @Test
    void aClassicAckBeyondWhatWasSentClosesAndAcknowledgesNothing() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), true)) {
            try (ClassicSlave slave = ClassicSlave.connect(master, 0)) {
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
                // apache/rocketmq#3015: RocketMQ's master takes any report; this one closes the connection
                slave.report(1L << 40);
                slave.assertClosedByMaster();
            }
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().isEmpty());
            assertEquals(PutMessageStatus.SLAVE_NOT_AVAILABLE, master.put("T", 0, 100).status());
        }
    }

    @Test
    void aClassicAckThatGoesBackCloses() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("T", 0, 5, 200);
            long max = master.store.getMaxPhyOffset();
            try (ClassicSlave slave = ClassicSlave.connect(master, 0)) {
                slave.readUntil(0, max, 32768);
                slave.report(max);
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().get(0).ackOffset() == max);
                slave.report(max - 10);
                slave.assertClosedByMaster();
            }
        }
    }
}
