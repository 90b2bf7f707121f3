package io.basalt.bench.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;
import io.basalt.store.BrokerMessage;
import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;

/**
 * CommitLog append throughput on real files: each benchmark thread puts one record at a time and
 * waits for its future (so SYNC_FLUSH measures acknowledged, forced appends and shows how well group
 * commit batches concurrent writers). Records are {@code recordSize} bytes on disk (IPv4 hosts, no
 * properties); MB/s = ops/s × recordSize. Run with {@code -t 1}, {@code -t 4}, {@code -t 16}.
 *
 * <p>The store lives in a fresh temporary directory (under {@code java.io.tmpdir}, or
 * {@code -Dbasalt.bench.dir=...} on the filesystem to measure), deleted after each trial. After each
 * iteration it prints the device's KiB written per acknowledged message, from {@code /proc/diskstats}
 * ({@code -Dbasalt.bench.device=vda}); that count includes background file allocation and every
 * other writer on the machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:MaxDirectMemorySize=2g"})
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 2, time = 4)
public class CommitLogAppendBenchmark {
    private static final String TOPIC = "BenchTopic";
    /** Record bytes besides body and topic with IPv4 hosts and no properties. */
    private static final int RECORD_OVERHEAD = 91;

    @Param({"128", "1024"})
    public int recordSize;

    @Param({"ASYNC_FLUSH", "SYNC_FLUSH"})
    public String flushDiskType;

    @Param({"268435456"})
    public int mappedFileSize;

    @Param({"false"})
    public boolean transientStorePool;

    private Path dir;
    private CommitLog commitLog;
    private final LongAdder appended = new LongAdder();
    private final LongAdder[] byStatus = new LongAdder[PutMessageStatus.values().length];
    private long sectorsBefore;
    private long appendedBefore;
    private long forcesBefore;
    private long groupedBefore;

    /** One message per benchmark thread (the store fills in its offsets when it appends). */
    @State(Scope.Thread)
    public static class Producer {
        BrokerMessage message;
        int queueId;

        @Setup(Level.Trial)
        public void setUp(CommitLogAppendBenchmark bench) {
            queueId = (int) (Thread.currentThread().getId() % 8);
            byte[] body = new byte[bench.recordSize - RECORD_OVERHEAD - TOPIC.length()];
            message = BrokerMessage.builder().topic(TOPIC).queueId(queueId).body(body)
                .bornTimestamp(System.currentTimeMillis()).build();
        }
    }

    /** Per-thread outcome counts, reported by JMH as rates next to the score ({@code append:putOk}). */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Outcomes {
        /** Acknowledged puts: the msgs/s to quote (the score also counts refused puts). */
        public long putOk;
        /** Puts answered with any other status (e.g. OS_PAGE_CACHE_BUSY when the disk falls behind). */
        public long putRefused;

        @Setup(Level.Iteration)
        public void reset() {
            putOk = 0;
            putRefused = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        for (int i = 0; i < byStatus.length; i++) {
            byStatus[i] = new LongAdder();
        }
        Path base = Paths.get(System.getProperty("basalt.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(base, "basalt-commitlog-bench-");
        StoreConfig config = StoreConfig.builder()
            .storePathRootDir(dir.toString())
            .mappedFileSizeCommitLog(mappedFileSize)
            .flushDiskType(FlushDiskType.valueOf(flushDiskType))
            .transientStorePoolEnable(transientStorePool)
            .transientStorePoolSize(3)
            .build();
        commitLog = CommitLog.open(config);
        commitLog.load();
        commitLog.start();
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        sectorsBefore = sectorsWritten();
        appendedBefore = appended.sum();
        forcesBefore = commitLog.groupCommitForces();
        groupedBefore = commitLog.groupCommitRequests();
    }

    /** Prints the device bytes written per acknowledged message during the iteration. */
    @TearDown(Level.Iteration)
    public void endIteration() {
        long messages = appended.sum() - appendedBefore;
        long sectors = sectorsWritten() - sectorsBefore;
        if (sectorsBefore >= 0 && messages > 0) {
            StringBuilder failures = new StringBuilder();
            for (PutMessageStatus status : PutMessageStatus.values()) {
                long n = byStatus[status.ordinal()].sum();
                if (status != PutMessageStatus.PUT_OK && n > 0) {
                    failures.append(' ').append(status).append('=').append(n);
                }
            }
            long forces = commitLog.groupCommitForces() - forcesBefore;
            long grouped = commitLog.groupCommitRequests() - groupedBefore;
            System.out.printf("%n[store-bench] %s recordSize=%d: %d messages, device %.2f KiB written per message "
                    + "(%d MiB in the iteration), %s; not OK so far:%s%n", flushDiskType, recordSize, messages,
                sectors * 512.0 / 1024 / messages, sectors * 512 / (1024 * 1024),
                forces == 0 ? "no group commit" : String.format("%.1f puts per force (%d forces)",
                    (double) grouped / forces, forces),
                failures.length() == 0 ? " none" : failures);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        commitLog.shutdown();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Benchmark
    public PutMessageResult append(Producer producer, Outcomes outcomes) {
        PutMessageResult result = commitLog.asyncPutMessage(producer.message).join();
        if (result.status() == PutMessageStatus.PUT_OK) {
            appended.increment();
            outcomes.putOk++;
        } else {
            outcomes.putRefused++;
        }
        byStatus[result.status().ordinal()].increment();
        return result;
    }

    /** Sectors (512 B) written to the device so far, or -1 when unknown. */
    private static long sectorsWritten() {
        String device = System.getProperty("basalt.bench.device", "vda");
        try {
            List<String> lines = Files.readAllLines(Paths.get("/proc/diskstats"));
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[2].equals(device)) {
                    return Long.parseLong(f[9]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
