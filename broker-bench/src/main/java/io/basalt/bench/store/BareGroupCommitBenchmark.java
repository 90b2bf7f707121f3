package io.basalt.bench.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.jctools.queues.MpscUnboundedArrayQueue;
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

/**
 * The least a SYNC_FLUSH group commit can do on this machine, without the store: puts copy
 * {@code recordSize} bytes into one write buffer under a lock and wait for a future; one flusher
 * thread writes whatever was appended with {@code FileChannel.write}, calls {@code force(false)}
 * (fdatasync) and completes every future the force covered, itself ({@code completion=flusher}) or
 * through a second thread ({@code completion=handoff}, as the CommitLog's FlushAckThread does).
 * No record format, no CRC, no queue offsets, no file rollover.
 *
 * <p>Run it next to {@link CommitLogAppendBenchmark} under SYNC_FLUSH with {@code -t 1} and
 * {@code -t 16}, as {@code dd} is run next to the async appends: it shows what the disk and cores
 * give a closed loop of blocking writers. One writer waits out a whole fdatasync per put; sixteen
 * share each one, and are then held back by the CPU it takes to wake each blocked writer and run
 * it again, which the store cannot take away.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:MaxDirectMemorySize=2g"})
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 2, time = 4)
public class BareGroupCommitBenchmark {
    private static final int FILE_SIZE = 256 << 20;

    @Param({"1024"})
    public int recordSize;

    @Param({"flusher", "handoff"})
    public String completion;

    private Path dir;
    private FileChannel channel;
    private final ByteBuffer writeBuffer = ByteBuffer.allocateDirect(FILE_SIZE);
    private final Object appendLock = new Object();
    /** Logical end of what was appended (it wraps over the file: the position is this mod FILE_SIZE). */
    private long appended;
    private final MpscUnboundedArrayQueue<Waiter> waiters = new MpscUnboundedArrayQueue<>(1024);
    private final AtomicBoolean flusherParked = new AtomicBoolean();
    private volatile boolean stopped;
    private Thread flusher;
    private ExecutorService acker;
    private byte[] record;

    private record Waiter(long end, CompletableFuture<Void> future) {
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path base = Paths.get(System.getProperty("basalt.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(base, "basalt-bare-group-commit-");
        channel = FileChannel.open(dir.resolve("log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        // Written blocks, as the CommitLog's SYNC_FLUSH files are: fdatasync then writes no metadata.
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long pos = 0; pos < FILE_SIZE; pos += zeros.capacity()) {
            zeros.clear();
            while (zeros.hasRemaining()) {
                channel.write(zeros, pos + zeros.position());
            }
        }
        channel.force(true);
        record = new byte[recordSize];
        acker = completion.equals("handoff") ? Executors.newSingleThreadExecutor(r -> new Thread(r, "BareAck")) : null;
        flusher = new Thread(this::flushLoop, "BareGroupCommit");
        flusher.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException, InterruptedException {
        stopped = true;
        LockSupport.unpark(flusher);
        flusher.join();
        if (acker != null) {
            acker.shutdown();
            acker.awaitTermination(10, TimeUnit.SECONDS);
        }
        channel.close();
        Files.deleteIfExists(dir.resolve("log"));
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public void append() {
        long end;
        synchronized (appendLock) {
            int pos = (int) (appended % FILE_SIZE);
            if (pos + recordSize > FILE_SIZE) {
                appended += FILE_SIZE - pos;
                pos = 0;
            }
            writeBuffer.put(pos, record);
            appended += recordSize;
            end = appended;
        }
        Waiter waiter = new Waiter(end, new CompletableFuture<>());
        waiters.offer(waiter);
        if (flusherParked.compareAndSet(true, false)) {
            LockSupport.unpark(flusher);
        }
        waiter.future().join();
    }

    private void flushLoop() {
        long written = 0;
        List<Waiter> group = new ArrayList<>();
        while (!stopped) {
            waiters.drain(group::add);
            if (group.isEmpty()) {
                flusherParked.set(true);
                if (waiters.isEmpty() && !stopped) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
                flusherParked.set(false);
                continue;
            }
            long end;
            synchronized (appendLock) {
                end = appended;
            }
            try {
                written = write(written, end);
                channel.force(false);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<Waiter> covered = group;
            group = new ArrayList<>();
            Runnable complete = () -> covered.forEach(w -> w.future().complete(null));
            if (acker == null) {
                complete.run();
            } else {
                acker.execute(complete);
            }
        }
    }

    /** Writes the buffer's logical range [from, to) to the file, split where it wraps. */
    private long write(long from, long to) throws IOException {
        while (from < to) {
            int pos = (int) (from % FILE_SIZE);
            int length = (int) Math.min(to - from, FILE_SIZE - pos);
            ByteBuffer slice = writeBuffer.slice(pos, length);
            while (slice.hasRemaining()) {
                channel.write(slice, pos + slice.position());
            }
            from += length;
        }
        return to;
    }
}
