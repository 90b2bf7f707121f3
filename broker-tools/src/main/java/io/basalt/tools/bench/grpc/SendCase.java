package io.basalt.tools.bench.grpc;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.tools.bench.transaction.ProcessCpu;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Closed-loop sync sends: THREADS threads share one {@link Producer} and each sends the next message as soon as the
 * previous one is answered. Sends during the warm-up are not counted; over the measured window: sends/s, send
 * latency percentiles, failures, and the broker's CPU time per 1,000 messages.
 */
@Command(name = "send", mixinStandardHelpOptions = true, description = "Sync Producer.send throughput and latency.")
final class SendCase implements Callable<Integer> {
    @CommandLine.Mixin
    GrpcBench.Common common = new GrpcBench.Common();
    @CommandLine.Option(names = {"-t", "--threads"}, defaultValue = "16", description = "sending threads (default: ${DEFAULT-VALUE})")
    int threads;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private volatile boolean measuring;
    private volatile boolean stop;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        GrpcClients clients = common.clients();
        ProcessCpu cpu = common.cpu();
        Recorder latency = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lastError = new AtomicLong();
        try (Producer producer = clients.producer(common.topic)) {
            Message message = clients.message(common.topic, new byte[common.size]);
            List<Thread> senders = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    while (!stop) {
                        long start = System.nanoTime();
                        try {
                            producer.send(message);
                            if (measuring) {
                                latency.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                                ok.incrementAndGet();
                            }
                        } catch (Exception e) {
                            if (measuring) {
                                failed.incrementAndGet();
                            }
                            if (System.currentTimeMillis() - lastError.getAndSet(System.currentTimeMillis()) > 5000) {
                                GrpcBench.progress(out, "send failed: %s", GrpcBench.describe(e));
                            }
                        }
                    }
                }, "sender-" + i);
                senders.add(t);
                t.start();
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(common.warmupSeconds));
            GrpcBench.progress(out, "warm-up done");
            latency.reset();
            long cpu0 = GrpcBench.cpuMicros(cpu);
            long t0 = System.nanoTime();
            measuring = true;
            Thread.sleep(TimeUnit.SECONDS.toMillis(common.measureSeconds));
            measuring = false;
            long elapsedNanos = System.nanoTime() - t0;
            long cpuUsed = GrpcBench.cpuMicros(cpu) - cpu0;
            stop = true;
            for (Thread t : senders) {
                t.join(TimeUnit.SECONDS.toMillis(15));
            }
            Histogram h = latency.getIntervalHistogram();
            long sent = ok.get();
            out.printf(Locale.ROOT, "RESULT %s send threads=%d size=%d tps=%.0f p50_ms=%s p99_ms=%s p999_ms=%s max_ms=%s"
                    + " sent=%d failed=%d broker_cpu_ms_per_1k=%s%n",
                common.label, threads, common.size, sent * 1e9 / elapsedNanos,
                GrpcBench.ms(h.getValueAtPercentile(50)), GrpcBench.ms(h.getValueAtPercentile(99)),
                GrpcBench.ms(h.getValueAtPercentile(99.9)), GrpcBench.ms(h.getMaxValue()),
                sent, failed.get(), GrpcBench.cpuMsPer1k(cpu, cpuUsed, sent));
            out.flush();
            return 0;
        }
    }
}
