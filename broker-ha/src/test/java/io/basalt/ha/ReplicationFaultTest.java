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
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.ha.slave.HAClient;
import io.basalt.store.FlushDiskType;
import io.basalt.store.commitlog.PutMessageResult;
import io.basalt.store.commitlog.PutMessageStatus;

/** Faults on the link between master and slave, injected by an in-test TCP proxy. */
@ExtendWith(NoLeakedThreads.class)
class ReplicationFaultTest {
    @TempDir
    Path dir;

    private static HAConfig config(long gap, long slaveTimeoutMs) {
        return HAConfig.builder().haListenPort(0).haMaxGapNotInSync(gap).haSendHeartbeatInterval(200)
            .haHousekeepingInterval(3000).haTransferBatchSize(32768).slaveTimeoutMs(slaveTimeoutMs).reconnectIntervalMs(100).build();
    }

    private static void awaitCaughtUp(HANode master, HANode slave) {
        await().atMost(ofSeconds(60)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
    }

    @Test
    void stalledSlaveGivesFlushSlaveTimeoutThenRecovers() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH)
                 .asMaster(config(256L << 20, 1000), true);
             TcpProxy proxy = new TcpProxy(master.haAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                 .asSlave(config(256L << 20, 1000), proxy.address())) {
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
            assertEquals(PutMessageStatus.PUT_OK, master.put("TopicF", 0, 512).status());
            proxy.stall();
            PutMessageResult stalled = master.put("TopicF", 1, 512);
            assertEquals(PutMessageStatus.FLUSH_SLAVE_TIMEOUT, stalled.status());
            assertTrue(slave.store.getMaxPhyOffset() < stalled.appendResult().nextOffset());
            proxy.resume();
            awaitCaughtUp(master, slave);
            assertEquals(PutMessageStatus.PUT_OK, master.put("TopicF", 2, 512).status());
        }
    }

    @Test
    void slaveFarBehindGivesSlaveNotAvailableAtOnce() throws Exception {
        HAConfig small = config(64 * 1024, 60_000);
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(small, true);
             TcpProxy proxy = new TcpProxy(master.haAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(small, proxy.address())) {
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
            proxy.stall();
            for (int i = 0; i < 200; i++) {
                // WAIT=false: stored without waiting for anyone
                assertEquals(PutMessageStatus.PUT_OK, master.store.asyncPutMessage(
                    HANode.message("TopicF", 0, "nw-" + i, 1024, false)).join().status());
            }
            // a 60 s slave timeout: only the gap check can answer this quickly
            PutMessageResult r = master.put("TopicF", 0, 1024);
            assertEquals(PutMessageStatus.SLAVE_NOT_AVAILABLE, r.status());
            proxy.resume();
            awaitCaughtUp(master, slave);
            assertEquals(PutMessageStatus.PUT_OK, master.put("TopicF", 1, 1024).status());
        }
    }

    @Test
    void droppedConnectionsRecoverAndNoAcknowledgedMessageIsLost() throws Exception {
        HAConfig cfg = config(256L << 20, 3000);
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(cfg, true);
             TcpProxy proxy = new TcpProxy(master.haAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(cfg, proxy.address())) {
            await().atMost(ofSeconds(10)).until(() -> slave.slave.state() == HAClient.State.TRANSFER);
            List<CompletableFuture<long[]>> acked = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 400; i++) {
                    int n = round * 400 + i;
                    acked.add(master.store.asyncPutMessage(HANode.message("TopicF", n % 4, "d-" + n, 1024, true))
                        .thenApply(r -> new long[] {r.status() == PutMessageStatus.PUT_OK ? 1 : 0,
                            r.appendResult().nextOffset(), slave.store.getMaxPhyOffset()}));
                }
                proxy.cut();
            }
            int ok = 0;
            for (CompletableFuture<long[]> f : acked) {
                long[] r = f.join();
                if (r[0] == 1) {
                    ok++;
                    assertTrue(r[2] >= r[1], "an acknowledged message was on the slave when acknowledged");
                }
            }
            assertTrue(ok > 0);
            awaitCaughtUp(master, slave);
            long max = master.store.getMaxPhyOffset();
            assertArrayEquals(master.commitLogBytes(0, max), slave.commitLogBytes(0, max));
        }
    }

    @Test
    void slowSlaveNeverBlocksAsyncMasterTraffic() throws Exception {
        HAConfig cfg = config(256L << 20, 3000);
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(cfg, false);
             TcpProxy proxy = new TcpProxy(master.haAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(cfg, proxy.address())) {
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
            proxy.slow(4096);
            for (PutMessageResult r : master.putMany("TopicF", 0, 1500, 1024)) {
                assertEquals(PutMessageStatus.PUT_OK, r.status());
            }
            proxy.stall();
            for (PutMessageResult r : master.putMany("TopicF", 1500, 500, 1024)) {
                assertEquals(PutMessageStatus.PUT_OK, r.status(), "ASYNC_MASTER puts never wait for the link");
            }
            assertTrue(master.master.slaves().get(0).lagBytes() > 0);
            proxy.slow(0);
            proxy.resume();
            awaitCaughtUp(master, slave);
            long max = master.store.getMaxPhyOffset();
            assertArrayEquals(master.commitLogBytes(0, max), slave.commitLogBytes(0, max));
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().get(0).lagBytes() == 0);
        }
    }
}
