package io.basalt.bench.ha;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import io.basalt.ha.EpochFile;
import io.basalt.ha.HAConfig;
import io.basalt.ha.Peer;
import io.basalt.ha.master.HAService;
import io.basalt.ha.slave.HAClient;
import io.basalt.store.MessageStore;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.testing.TestMessages;
import io.basalt.store.testing.TestStores;

/**
 * Synchronous 1 KiB puts from 16 threads into a master store with one slave replicating over
 * loopback, as ASYNC_MASTER (the put waits for the flush only) and as SYNC_MASTER (it also waits
 * for the slave's ack). Store level: no remoting, no client. Throughput and latency percentiles
 * ({@code -bm thrpt}, {@code -bm sample}); puts that did not return PUT_OK are counted and printed.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(16)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:MaxDirectMemorySize=1g"})
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 2, time = 4)
public class ReplicatedPutBenchmark {
    private static final String TOPIC = "Bench";
    private static final int FILE_SIZE = 64 << 20;

    @Param({"ASYNC_MASTER", "SYNC_MASTER"})
    public String role;

    private final LongAdder failedPuts = new LongAdder();
    private final byte[] body = new byte[1024];
    private Path dir;
    private MessageStore masterStore;
    private MessageStore slaveStore;
    private HAService master;
    private HAClient slave;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("basalt-ha-bench-");
        HAConfig config = HAConfig.builder().haListenPort(0).build();
        masterStore = TestStores.start(TestStores.config(dir.resolve("master")).mappedFileSizeCommitLog(FILE_SIZE).build());
        slaveStore = TestStores.start(TestStores.config(dir.resolve("slave")).mappedFileSizeCommitLog(FILE_SIZE).build());
        master = new HAService(masterStore, EpochFile.open(dir.resolve("master")), config,
            new Peer(0, "127.0.0.1:10911"), role.equals("SYNC_MASTER"));
        master.start();
        slave = new HAClient(slaveStore, EpochFile.open(dir.resolve("slave")), config, new Peer(1, "127.0.0.1:10921"),
            new InetSocketAddress("127.0.0.1", master.localPort()));
        slave.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (master.slaves().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the slave did not connect within 10 s");
            }
            Thread.onSpinWait();
        }
    }

    @Benchmark
    public PutMessageStatus put() {
        BrokerMessage m = TestMessages.message(TOPIC, ThreadLocalRandom.current().nextInt(8), body).build();
        PutMessageStatus status = masterStore.asyncPutMessage(m).join().status();
        if (status != PutMessageStatus.PUT_OK) {
            failedPuts.increment();
        }
        return status;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        slave.shutdown();
        master.shutdown();
        slaveStore.shutdown();
        masterStore.shutdown();
        System.out.printf("%n%s: %d puts did not return PUT_OK%n", role, failedPuts.sum());
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
