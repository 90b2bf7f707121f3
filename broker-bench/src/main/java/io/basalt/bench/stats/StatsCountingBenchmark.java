package io.basalt.bench.stats;

import java.util.concurrent.TimeUnit;

import io.basalt.broker.stats.BrokerStats;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What RocketMQ's statistics add to one stored send ({@link BrokerStats#stored}: the topic's item pair found in a
 * map, the message and byte counters and the broker totals, with the system-topic test) and to one FOUND pull
 * ({@link BrokerStats#delivered}), on 2 threads counting the same topic, as send threads do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(2)
public class StatsCountingBenchmark {
    private BrokerStats stats;

    @Setup
    public void setUp() {
        stats = new BrokerStats(System::currentTimeMillis, "DefaultCluster", topic -> topic.startsWith("rmq_sys_"));
        stats.stored("BenchTopic", 1, 1200);
        stats.delivered("BenchTopic", "BenchGroup", 32, 32 * 1200);
    }

    @Benchmark
    public void storedSend() {
        stats.stored("BenchTopic", 1, 1200);
    }

    @Benchmark
    public void foundPull() {
        stats.delivered("BenchTopic", "BenchGroup", 32, 32 * 1200);
    }
}
