package io.basalt.bench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.basalt.store.index.IndexService;
import io.basalt.store.queue.ConsumeQueue;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.queue.DispatchRequest;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the dispatcher costs per message: one ConsumeQueue entry, and one index key (UNIQ_KEY). The
 * dispatcher must keep up with the CommitLog's append rate for messages to be readable promptly.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class DispatchBenchmark {
    private Path dir;
    private ConsumeQueueStore queues;
    private IndexService index;
    private ConsumeQueue queue;
    private long next;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("basalt-dispatch-bench");
        queues = ConsumeQueueStore.open(dir.resolve("consumequeue"), 300_000 * 20);
        index = IndexService.open(dir.resolve("index"), 5_000_000, 20_000_000, Clock.systemDefaultZone());
        queue = queues.findOrCreate("BenchTopic", 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        queues.close();
        index.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** One entry written and published on its own (one pwrite). */
    @Benchmark
    public ConsumeQueue.PutResult consumeQueueEntry() throws IOException {
        long i = next++;
        return queue.put(i * 300, 300, 0, i);
    }

    /** As the dispatcher does: entries appended, committed (one pwrite) every 64. */
    @Benchmark
    public ConsumeQueue.PutResult consumeQueueEntryCommittedBy64() throws IOException {
        long i = next++;
        ConsumeQueue.PutResult r = queue.append(i * 300, 300, 0, i);
        if ((i & 63) == 63) {
            queue.commit();
        }
        return r;
    }

    @Benchmark
    public void indexKey() throws IOException {
        long i = next++;
        index.buildIndex(new DispatchRequest("BenchTopic", 0, i * 300, 300, 0, 1_700_000_000_000L + i / 1000, i,
                null, "AC11000100002A9F0000" + i, 0));
    }
}
