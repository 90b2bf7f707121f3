package io.basalt.tools.bench.grpc;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.basalt.tools.bench.transaction.ProcessCpu;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.producer.Producer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * End-to-end latency at a fixed rate: message i is due at start + i / RATE s (open loop: a late send does not
 * shift the ones after it); THREADS threads take the next due message and sync-send it with its due time and its
 * send time (System.nanoTime of this JVM) in the first 16 body bytes. A PushConsumer in the same JVM records
 * receive time minus send time. Only messages due inside the measured window count: achieved send rate,
 * p50/p99/p99.9/max latency, messages received of those sent, and the broker's CPU per 1,000 messages.
 */
@Command(name = "e2e", mixinStandardHelpOptions = true, description = "End-to-end latency at a fixed send rate (PushConsumer).")
final class EndToEndCase implements Callable<Integer> {
    @CommandLine.Mixin
    GrpcBench.Common common = new GrpcBench.Common();
    @CommandLine.Option(names = "--rate", defaultValue = "5000", description = "messages per second (default: ${DEFAULT-VALUE})")
    int rate;
    @CommandLine.Option(names = {"-t", "--threads"}, defaultValue = "32", description = "sending threads (default: ${DEFAULT-VALUE})")
    int threads;
    @CommandLine.Option(names = "--consume-threads", defaultValue = "16", description = "PushConsumer threads (default: ${DEFAULT-VALUE})")
    int consumeThreads;
    @CommandLine.Option(names = "--group", defaultValue = "GrpcBenchE2e", description = "consumer group (default: ${DEFAULT-VALUE})")
    String group;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        GrpcClients clients = common.clients();
        ProcessCpu cpu = common.cpu();
        Recorder latency = new Recorder(TimeUnit.SECONDS.toMicros(600), 3);
        AtomicLong received = new AtomicLong();
        long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        long measureFrom = start + TimeUnit.SECONDS.toNanos(common.warmupSeconds);
        long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(common.measureSeconds);
        long periodNanos = 1_000_000_000L / rate;
        long total = (long) rate * (common.warmupSeconds + common.measureSeconds);

        try (PushConsumer ignored = clients.pushConsumer(group, common.topic, consumeThreads, view -> {
            long now = System.nanoTime();
            ByteBuffer body = view.getBody();
            long due = body.getLong(0);
            long sentAt = body.getLong(8);
            if (due >= measureFrom && due < measureTo) {
                latency.recordValue(Math.max(1, (now - sentAt) / 1000));
                received.incrementAndGet();
            }
            return ConsumeResult.SUCCESS;
        }); Producer producer = clients.producer(common.topic)) {
            AtomicLong next = new AtomicLong();
            AtomicLong sentInWindow = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            List<Thread> senders = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    long n;
                    while ((n = next.getAndIncrement()) < total) {
                        long due = start + n * periodNanos;
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        byte[] body = new byte[common.size];
                        ByteBuffer.wrap(body).putLong(due).putLong(System.nanoTime());
                        try {
                            producer.send(clients.message(common.topic, body));
                            if (due >= measureFrom && due < measureTo) {
                                sentInWindow.incrementAndGet();
                            }
                        } catch (Exception e) {
                            failed.incrementAndGet();
                        }
                    }
                }, "e2e-sender-" + i);
                senders.add(t);
                t.start();
            }
            LockSupport.parkNanos(measureFrom - System.nanoTime());
            GrpcBench.progress(out, "warm-up done");
            long cpu0 = GrpcBench.cpuMicros(cpu);
            LockSupport.parkNanos(measureTo - System.nanoTime());
            long cpuUsed = GrpcBench.cpuMicros(cpu) - cpu0;
            long lastDueSentAt = System.nanoTime();
            for (Thread t : senders) {
                t.join();
            }
            // the rate achieved: messages due in the window, over the time until the last of them was sent
            long windowNanos = Math.max(measureTo, lastDueSentAt) - measureFrom;
            long sent = sentInWindow.get();
            // let the consumer catch up with what was sent in the window (bounded)
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received.get() < sent && System.nanoTime() < waitUntil) {
                Thread.sleep(100);
            }
            Histogram h = latency.getIntervalHistogram();
            out.printf(Locale.ROOT, "RESULT %s e2e rate=%d size=%d achieved_per_s=%.0f p50_ms=%s p99_ms=%s p999_ms=%s max_ms=%s"
                    + " sent=%d received=%d failed=%d broker_cpu_ms_per_1k=%s%n",
                common.label, rate, common.size, sent * 1e9 / windowNanos,
                GrpcBench.ms(h.getValueAtPercentile(50)), GrpcBench.ms(h.getValueAtPercentile(99)),
                GrpcBench.ms(h.getValueAtPercentile(99.9)), GrpcBench.ms(h.getMaxValue()),
                sent, received.get(), failed.get(), GrpcBench.cpuMsPer1k(cpu, cpuUsed, sent));
            out.flush();
            return 0;
        }
    }
}
