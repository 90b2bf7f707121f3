package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.commitlog.PutMessageStatus;

/**
 * A seeded schedule of link faults (cut, stall, slow, resume) between rounds of SYNC_MASTER puts.
 * Whatever the schedule, every PUT_OK was on the slave when it completed and both logs end
 * byte-identical. The seed names the schedule, so a failure can be replayed.
 */
@ExtendWith(NoLeakedThreads.class)
class SeededFaultScheduleTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 20261129})
    void acknowledgedMeansReplicatedUnderAnySchedule(long seed) throws Exception {
        Random random = new Random(seed);
        HAConfig cfg = HAConfig.builder().haListenPort(0).haMaxGapNotInSync(256L << 20).haSendHeartbeatInterval(100)
            .haHousekeepingInterval(2000).haTransferBatchSize(16384).slaveTimeoutMs(400).reconnectIntervalMs(50).build();
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(cfg, true);
             TcpProxy proxy = new TcpProxy(master.haAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(cfg, proxy.address())) {
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
            int n = 0;
            for (int round = 0; round < 12; round++) {
                switch (random.nextInt(5)) {
                    case 0 -> proxy.cut();
                    case 1 -> proxy.stall();
                    case 2 -> proxy.slow(1 + random.nextInt(8192));
                    default -> {
                        proxy.slow(0);
                        proxy.resume();
                    }
                }
                List<CompletableFuture<long[]>> puts = new ArrayList<>();
                int count = 20 + random.nextInt(200);
                for (int i = 0; i < count; i++, n++) {
                    int size = 16 + random.nextInt(4096);
                    puts.add(master.store.asyncPutMessage(HANode.message("TopicR", n % 3, "r-" + n, size, true))
                        .thenApply(r -> new long[] {r.status() == PutMessageStatus.PUT_OK ? 1 : 0,
                            r.appendResult().nextOffset(), slave.store.getMaxPhyOffset()}));
                }
                if (random.nextBoolean()) {
                    proxy.slow(0);
                    proxy.resume();
                }
                for (CompletableFuture<long[]> f : puts) {
                    long[] r = f.join();
                    if (r[0] == 1) {
                        assertTrue(r[2] >= r[1], "seed " + seed + ": PUT_OK up to " + r[1] + " but the slave had " + r[2]);
                    }
                }
            }
            proxy.slow(0);
            proxy.resume();
            await().atMost(ofSeconds(60)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
            // a healed link acknowledges again
            await().atMost(ofSeconds(30)).until(() -> master.put("TopicR", 0, 100).status() == PutMessageStatus.PUT_OK);
            await().atMost(ofSeconds(60)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
            long max = master.store.getMaxPhyOffset();
            assertArrayEquals(master.commitLogBytes(0, max), slave.commitLogBytes(0, max), "seed " + seed);
        }
    }
}
