package io.basalt.bench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.basalt.store.index.IndexService;
import io.basalt.store.index.QueryOffsetResult;
import io.basalt.store.queue.DispatchRequest;

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
 * Latency of one index lookup (queryOffset of a random existing key, up to 32 results) in a warm
 * IndexFile holding {@code keys} keys at RocketMQ's slot-to-item ratio (1 slot per 4 items).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class IndexLookupBenchmark {
    private static final String TOPIC = "BenchTopic";

    @Param({"1000000"})
    public int keys;

    private Path dir;
    private IndexService index;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("basalt-index-bench");
        index = IndexService.open(dir.resolve("index"), keys / 4, keys + 1, Clock.systemDefaultZone());
        long time = System.currentTimeMillis();
        for (int i = 0; i < keys; i++) {
            index.buildIndex(new DispatchRequest(TOPIC, 0, i * 300L, 300, 0, time + i / 1000, i, null, "key-" + i, 0));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        index.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public QueryOffsetResult lookup() {
        int k = ThreadLocalRandom.current().nextInt(keys);
        return index.queryOffset(TOPIC, "key-" + k, 32, 0, Long.MAX_VALUE);
    }
}
