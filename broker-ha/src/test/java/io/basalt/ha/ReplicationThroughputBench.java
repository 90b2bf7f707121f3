package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.commitlog.PutMessageStatus;

/**
 * Not a test: a short throughput run (enabled with {@code -Dbasalt.bench=true}). 16 threads put
 * 1 KiB messages synchronously into a master store with a slave on loopback, ASYNC_MASTER then
 * SYNC_MASTER, and print TPS and latency percentiles. Store-level (no remoting, no client).
 */
@EnabledIfSystemProperty(named = "basalt.bench", matches = "true")
class ReplicationThroughputBench {
    private static final int THREADS = 16;
    private static final long WARMUP_NS = 2_000_000_000L;
    private static final long RUN_NS = 8_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void asyncVersusSyncMaster() throws Exception {
        String async = run(dir.resolve("async"), false);
        String sync = run(dir.resolve("sync"), true);
        System.out.println("HA-BENCH ASYNC_MASTER " + async);
        System.out.println("HA-BENCH SYNC_MASTER  " + sync);
    }

    private String run(Path root, boolean sync) throws Exception {
        HAConfig cfg = HAConfig.builder().haListenPort(0).haMaxGapNotInSync(256L << 20).haSendHeartbeatInterval(1000)
            .haHousekeepingInterval(10000).haTransferBatchSize(32768).slaveTimeoutMs(3000).reconnectIntervalMs(100).build();
        try (HANode master = HANode.open(root.resolve("m"), FlushDiskType.ASYNC_FLUSH, 64 << 20).asMaster(cfg, sync);
             HANode slave = HANode.open(root.resolve("s"), FlushDiskType.ASYNC_FLUSH, 64 << 20).asSlave(cfg, master.haAddress())) {
            await().atMost(ofSeconds(10)).until(() -> !master.master.slaves().isEmpty());
            long start = System.nanoTime();
            long measureFrom = start + WARMUP_NS;
            long end = measureFrom + RUN_NS;
            AtomicLong errors = new AtomicLong();
            List<long[]> perThread = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            int[] counts = new int[THREADS];
            for (int t = 0; t < THREADS; t++) {
                long[] lat = new long[500_000];
                perThread.add(lat);
                int id = t;
                Thread th = new Thread(() -> {
                    int n = 0;
                    int i = 0;
                    while (true) {
                        long t0 = System.nanoTime();
                        if (t0 >= end) {
                            break;
                        }
                        PutMessageStatus s = master.store.asyncPutMessage(
                            HANode.message("Bench", id % 8, "b" + i++, 1024, true)).join().status();
                        long t1 = System.nanoTime();
                        if (s != PutMessageStatus.PUT_OK) {
                            errors.incrementAndGet();
                        }
                        if (t0 >= measureFrom && n < lat.length) {
                            lat[n++] = t1 - t0;
                        }
                    }
                    counts[id] = n;
                }, "bench-" + t);
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                th.join();
            }
            int total = Arrays.stream(counts).sum();
            long[] all = new long[total];
            int at = 0;
            for (int t = 0; t < THREADS; t++) {
                System.arraycopy(perThread.get(t), 0, all, at, counts[t]);
                at += counts[t];
            }
            Arrays.sort(all);
            double tps = total / (RUN_NS / 1e9);
            return String.format("tps=%.0f p50=%dus p99=%dus p999=%dus errors=%d", tps,
                all[(int) (total * 0.50)] / 1000, all[(int) (total * 0.99)] / 1000, all[(int) (total * 0.999)] / 1000,
                errors.get());
        }
    }
}
