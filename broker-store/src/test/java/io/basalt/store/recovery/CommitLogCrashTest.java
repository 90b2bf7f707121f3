package io.basalt.store.recovery;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;
import io.basalt.store.BrokerMessage;
import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.PutMessageResult;

/**
 * Appends batches from several threads and "crashes" at random moments: the store is
 * copied mid-stream (checkpoint, abort marker, then the log), and the copy is optionally cut at a
 * random byte past everything durable, or given a garbage tail. Each copy is then recovered by a
 * real CommitLog. What survives must be exactly a prefix of the live log (byte-identical, ending on a
 * record boundary) that contains every record acknowledged before the crash.
 */
class CommitLogCrashTest {
    private static final Logger LOG = LoggerFactory.getLogger(CommitLogCrashTest.class);
    private static final int FILE_SIZE = CrashFiles.FILE_SIZE;
    private static final int CRASHES = 8;
    private static final int APPENDERS = 3;
    /**
     * How far appends may run past the crash loop's current target. Appends go on while a store is
     * copied (the copy must race live writes), but the log stays a few MiB: unpaced appenders filled
     * the heap with the decoded live log on a fast disk.
     */
    private static final long APPEND_SLACK = 512 * 1024;

    @TempDir
    Path dir;

    private record Crash(Path root, long ackedEnd) {
    }

    /**
     * With SYNC_FLUSH every acknowledged record must survive. With ASYNC_FLUSH an acknowledgement
     * promises nothing about the disk, so only what the checkpoint calls durable must survive; the
     * survivors must still be an exact prefix.
     */
    @ParameterizedTest(name = "{0}, transientStorePool={1}")
    @CsvSource({"SYNC_FLUSH,false", "SYNC_FLUSH,true", "ASYNC_FLUSH,false"})
    void everyCrashLeavesAPrefixHoldingEveryAcknowledgedRecord(FlushDiskType flushDiskType, boolean pool)
        throws Exception {
        long seed = System.nanoTime();
        LOG.info("seed {}, {}, transientStorePool={}", seed, flushDiskType, pool);
        Random random = new Random(seed);
        Path live = dir.resolve("live");
        StoreConfig config = CrashFiles.config(live, flushDiskType, pool);
        boolean acksAreDurable = flushDiskType == FlushDiskType.SYNC_FLUSH;
        CommitLog log = CommitLog.open(config);
        List<Crash> crashes = new ArrayList<>();
        AtomicLong ackedEnd = new AtomicLong();
        AtomicLong appendLimit = new AtomicLong(APPEND_SLACK);
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> appenders = new ArrayList<>();
        try {
            log.load();
            log.start();
            for (int t = 0; t < APPENDERS; t++) {
                int queueId = t;
                long threadSeed = random.nextLong();
                Thread thread = new Thread(() -> append(log, queueId, threadSeed, stop, appendLimit, ackedEnd, failures),
                    "CrashTestAppender-" + t);
                appenders.add(thread);
                thread.start();
            }
            for (int i = 0; i < CRASHES; i++) {
                long target = log.maxOffset() + 20_000 + random.nextInt(400_000);
                appendLimit.set(target + APPEND_SLACK);
                await().atMost(Duration.ofSeconds(60)).until(() -> log.maxOffset() >= target || !failures.isEmpty());
                long acked = acksAreDurable ? ackedEnd.get() : 0;
                Path copy = dir.resolve("crash-" + i);
                CrashFiles.copyRunningStore(live, copy);
                crashes.add(new Crash(copy, acked));
            }
        } finally {
            stop.set(true);
            for (Thread thread : appenders) {
                thread.join();
            }
            log.shutdown();
        }
        assertTrue(failures.isEmpty(), () -> "appender failed: " + failures.peek());

        CrashFiles.Contents all = CrashFiles.read(live.resolve("commitlog"), FILE_SIZE);
        Set<Long> boundaries = new HashSet<>(all.recordStarts());
        boundaries.addAll(all.recordEnds());
        boundaries.add(0L);
        for (int i = 0; i < crashes.size(); i++) {
            checkCrash(crashes.get(i), i, random, all, boundaries, flushDiskType, pool);
        }
    }

    private void checkCrash(Crash crash, int index, Random random, CrashFiles.Contents live, Set<Long> boundaries,
                            FlushDiskType flushDiskType, boolean pool) throws Exception {
        Path commitLogDir = crash.root().resolve("commitlog");
        long copiedEnd = CrashFiles.read(commitLogDir, FILE_SIZE).end();
        long durable = crash.ackedEnd();
        try (StoreCheckpoint cp = StoreCheckpoint.open(crash.root().resolve(StoreCheckpoint.FILE_NAME))) {
            durable = Math.max(durable, cp.physicRecoveryOffset());
            // Every record of this test carries the record CRC, so a tear in a topic or properties
            // (which the body CRC does not cover) is detected; tell recovery, as a store writing
            // them does.
            cp.recordCrcFromOffset(0);
        }
        assertTrue(copiedEnd >= durable, "copy " + index + " holds every durable byte: " + copiedEnd + " >= " + durable);
        long cut = durable + (long) (random.nextDouble() * (copiedEnd - durable));
        int mode = random.nextInt(3);
        if (mode == 1) {
            CrashFiles.zeroFrom(commitLogDir, FILE_SIZE, cut);
        } else if (mode == 2) {
            CrashFiles.garbageAt(commitLogDir, FILE_SIZE, cut, 1 + random.nextInt(4096), random);
        }

        CommitLog recovered = CommitLog.open(CrashFiles.config(crash.root(), flushDiskType, pool));
        long end;
        try {
            recovered.load();
            end = recovered.maxOffset();
        } finally {
            recovered.shutdown();
        }
        LOG.info("crash {}: acked end {}, durable {}, copied end {}, mode {} at {}, recovered end {}", index,
            crash.ackedEnd(), durable, copiedEnd, mode, cut, end);
        assertTrue(end >= durable, "crash " + index + ": acknowledged or flushed records lost, end " + end + " < "
            + durable);
        if (mode != 0 && end > cut) {
            // Only allowed when the cut fell into the padding of an END_OF_FILE marker whose 8-byte
            // header survived: then the log goes on at the next file.
            long markerAt = live.recordEnds().stream().filter(e -> e > end - FILE_SIZE && e <= end)
                .max(Long::compare).orElse(end - FILE_SIZE);
            assertTrue(end % FILE_SIZE == 0 && markerAt + 8 <= cut, "crash " + index + ": recovered past the cut");
        }
        assertTrue(boundaries.contains(end) || end == live.end(), "crash " + index + ": end " + end
            + " is not a record boundary of the live log");
        assertTrue(CrashFiles.samePrefix(live, dir.resolve("live").resolve("commitlog"), commitLogDir, FILE_SIZE, end),
            "crash " + index + ": recovered bytes differ from the live log");
        CrashFiles.Contents after = CrashFiles.read(commitLogDir, FILE_SIZE);
        assertEquals(end, after.end(), "crash " + index + ": recovery left readable bytes beyond its end");
    }

    private static void append(CommitLog log, int queueId, long seed, AtomicBoolean stop, AtomicLong appendLimit,
                               AtomicLong ackedEnd, ConcurrentLinkedQueue<Throwable> failures) {
        Random random = new Random(seed);
        Semaphore inFlight = new Semaphore(8);
        InetSocketAddress host = new InetSocketAddress(InetAddress.getLoopbackAddress(), 10911);
        List<CompletableFuture<PutMessageResult>> pending = new ArrayList<>();
        try {
            while (!stop.get()) {
                if (log.maxOffset() >= appendLimit.get()) {
                    LockSupport.parkNanos(100_000);
                    continue;
                }
                int count = 1 + random.nextInt(4);
                List<BrokerMessage> batch = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    byte[] body = new byte[1 + random.nextInt(3000)];
                    random.nextBytes(body);
                    batch.add(BrokerMessage.builder().topic("CrashTopic").queueId(queueId).body(body)
                        .propertiesString("KEYS\u0001k" + random.nextInt(1000) + "\u0002").bornHost(host)
                        .storeHost(host).bornTimestamp(System.currentTimeMillis()).recordCrc(true).build());
                }
                inFlight.acquire();
                CompletableFuture<PutMessageResult> f = count == 1 ? log.asyncPutMessage(batch.get(0))
                    : log.asyncPutMessages(batch);
                f.whenComplete((r, e) -> {
                    inFlight.release();
                    if (e != null) {
                        failures.add(e);
                    } else if (r.isOk()) {
                        ackedEnd.accumulateAndGet(r.appendResult().nextOffset(), Math::max);
                    }
                });
                pending.add(f);
                pending.removeIf(CompletableFuture::isDone);
            }
            for (CompletableFuture<PutMessageResult> f : pending) {
                f.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }
}
