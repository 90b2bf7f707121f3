package io.basalt.bench.service;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
import org.openjdk.jmh.infra.Blackhole;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * What a {@link ServiceThread#wakeup()} costs its caller, as the CommitLog's append listener pays it for the reput
 * service on every put: the caller publishes one unit of work and wakes the service, which drains what was
 * published and waits when nothing is left.
 *
 * <p>{@code work=busy}: each round of the service takes about as long as a reput round of a small batch, so most
 * wakeups find the service running with a wakeup already pending. {@code work=none}: the service drains at once
 * and parks, so most wakeups find it parked and must unpark it. {@code gapTokens} is the caller's own work between
 * two wakeups ({@link Blackhole#consumeCPU}; 0: back to back, 2000: a few microseconds, about one put of the send
 * path), which decides how often the service has parked by the time the next wakeup comes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
public class ServiceWakeupBenchmark {
    @Param({"busy", "none"})
    public String work;

    @Param({"0", "2000"})
    public long gapTokens;

    private final AtomicLong published = new AtomicLong();
    private Drainer drainer;

    @Setup(Level.Trial)
    public void start() {
        drainer = new Drainer(published, "busy".equals(work) ? 2_000 : 0);
        drainer.start();
    }

    @TearDown(Level.Trial)
    public void stop() {
        drainer.shutdown();
    }

    @Benchmark
    public void publishAndWakeup() {
        if (gapTokens > 0) {
            Blackhole.consumeCPU(gapTokens);
        }
        published.incrementAndGet();
        drainer.wakeup();
    }

    /** Drains the published count; with {@code spinNs} > 0 each round also spins that long, as real work would. */
    private static final class Drainer extends ServiceThread {
        private final AtomicLong published;
        private final long spinNs;
        private long drained;

        Drainer(AtomicLong published, long spinNs) {
            super("BenchDrainer", ErrorPolicy.resilient());
            this.published = published;
            this.spinNs = spinNs;
        }

        @Override
        protected int doWork() {
            long now = published.get();
            int done = (int) (now - drained);
            drained = now;
            if (done > 0 && spinNs > 0) {
                long until = System.nanoTime() + spinNs;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            return done;
        }

        @Override
        protected long idleWaitMs() {
            return 1_000;
        }
    }
}
