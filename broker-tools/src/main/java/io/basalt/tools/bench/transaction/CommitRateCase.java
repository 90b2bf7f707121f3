package io.basalt.tools.bench.transaction;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.basalt.tools.bench.delay.BenchClients;
import io.basalt.tools.bench.delay.ProbeBody;

/**
 * {@code commit-rate}: {@code --threads} threads call {@code sendMessageInTransaction} in a loop, the local
 * transaction answering COMMIT_MESSAGE at once. After a warm-up (30 s: on 2 cores the JIT compilers still take
 * a core at 20 s), a window of {@code --seconds}: transactional
 * sends per second, send latency (the whole {@code sendMessageInTransaction} call: half send, local transaction,
 * one-way END_TRANSACTION) and the broker's CPU per committed message, measured from the window's start until
 * every commit sent in it is stored in the topic. Then a push consumer reads the topic back: every committed
 * message must be there once.
 */
@Command(name = "commit-rate", mixinStandardHelpOptions = true,
    description = "Transactional sends/s with an immediate COMMIT, p99 latency, broker CPU per committed message.")
final class CommitRateCase implements Callable<Integer> {
    @CommandLine.Mixin
    TransactionBench.Common common = new TransactionBench.Common();
    @Option(names = "--warmup-s", defaultValue = "30", description = "seconds of warm-up before the window (default: ${DEFAULT-VALUE})")
    int warmupSeconds;
    @Option(names = "--seconds", defaultValue = "30", description = "the measured window (default: ${DEFAULT-VALUE})")
    int seconds;
    @Option(names = "--verify-s", defaultValue = "120", description = "give the read-back at most this long (default: ${DEFAULT-VALUE})")
    int verifySeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(60);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        BenchClients clients = new BenchClients(common.namesrv);
        String topic = common.unique("commit");
        clients.createTopic(topic, common.queues);
        ProcessCpu cpu = common.cpu();
        String loadBefore = TransactionBench.loadAverage();
        TransactionMQProducer producer = TxProducers.start(common.namesrv, topic.replace("TxBench_", "p_"),
            new CommitAtOnce(), 1);
        AtomicLong sequence = new AtomicLong();
        LongAdder committed = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicReference<String> firstError = new AtomicReference<>();
        // phase: 0 warm-up, 1 window, 2 stop
        AtomicLong phase = new AtomicLong();
        LongAdder windowCommitted = new LongAdder();
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < common.threads; t++) {
            Histogram h = new Histogram(HIGHEST_US, 3);
            histograms.add(h);
            Thread sender = new Thread(() -> {
                while (phase.get() < 2) {
                    long seq = sequence.getAndIncrement();
                    Message msg = new Message(topic, new ProbeBody(seq, 0).encode(common.size));
                    long start = System.nanoTime();
                    try {
                        TransactionSendResult r = producer.sendMessageInTransaction(msg, null);
                        long us = (System.nanoTime() - start) / 1000;
                        if (r.getSendStatus() == SendStatus.SEND_OK && r.getLocalTransactionState() == LocalTransactionState.COMMIT_MESSAGE) {
                            committed.increment();
                            if (phase.get() == 1) {
                                windowCommitted.increment();
                                h.recordValue(Math.min(us, HIGHEST_US));
                            }
                        } else {
                            failed.increment();
                            firstError.compareAndSet(null, r.getSendStatus() + "/" + r.getLocalTransactionState());
                        }
                    } catch (Exception e) {
                        failed.increment();
                        firstError.compareAndSet(null, TransactionBench.describe(e));
                    }
                }
            }, "txbench-sender-" + t);
            senders.add(sender);
        }
        try {
            senders.forEach(Thread::start);
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
            TransactionBench.progress(out, "warm-up: %d committed, %d failed", committed.sum(), failed.sum());
            long cpuStart = cpu.cpuMicros();
            long windowStart = System.nanoTime();
            phase.set(1);
            for (int s = 0; s < seconds; s++) {
                Thread.sleep(1000);
                if ((s + 1) % 10 == 0) {
                    TransactionBench.progress(out, "window %d s: %d committed", s + 1, windowCommitted.sum());
                }
            }
            phase.set(2);
            double windowS = (System.nanoTime() - windowStart) / 1e9;
            for (Thread sender : senders) {
                sender.join();
            }
            long total = committed.sum();
            long sent = sequence.get();
            // the commits are one-way: wait until the last of them is stored before reading the CPU
            long settleStart = System.nanoTime();
            long stored = clients.storedMessages(topic);
            while (stored < total && System.nanoTime() - settleStart < TimeUnit.SECONDS.toNanos(60)) {
                Thread.sleep(200);
                stored = clients.storedMessages(topic);
            }
            long cpuUs = cpu.cpuMicros() - cpuStart;
            double settleS = (System.nanoTime() - settleStart) / 1e9;
            String loadAfter = TransactionBench.loadAverage();
            TransactionBench.progress(out, "stored %d of %d committed (%d sends) %.1f s after the window", stored, total, sent, settleS);

            Deliveries deliveries = readBack(clients, topic, total, out);
            Histogram all = new Histogram(HIGHEST_US, 3);
            histograms.forEach(all::add);
            long inWindow = windowCommitted.sum();
            out.println(String.format(Locale.ROOT,
                "RESULT %s commit-rate threads=%d size=%d window_s=%.1f committed=%d tps=%.0f p50_ms=%.2f p99_ms=%.2f"
                    + " p999_ms=%.2f max_ms=%.2f failed=%d cpu_us_per_msg=%s stored=%d delivered=%d missing=%d"
                    + " duplicates=%d load=%s..%s%s",
                common.label, common.threads, common.size, windowS, inWindow, inWindow / windowS,
                all.getValueAtPercentile(50) / 1000.0, all.getValueAtPercentile(99) / 1000.0,
                all.getValueAtPercentile(99.9) / 1000.0, all.getMaxValue() / 1000.0, failed.sum(),
                cpu.known() ? String.format(Locale.ROOT, "%.1f", (double) cpuUs / inWindow) : "?", stored,
                deliveries.unique(), total - deliveries.unique(), deliveries.duplicates(), loadBefore, loadAfter,
                firstError.get() == null ? "" : " first_error=\"" + firstError.get().replace('"', '\'') + "\""));
            out.flush();
            return 0;
        } finally {
            phase.set(2);
            producer.shutdown();
        }
    }

    /** Consumes the topic from its first offset until {@code expected} distinct messages arrived or time is up. */
    private Deliveries readBack(BenchClients clients, String topic, long expected, PrintWriter out) throws Exception {
        Deliveries deliveries = new Deliveries();
        DefaultMQPushConsumer consumer = clients.startConsumer(topic.replace("TxBench_", "g_"), topic,
            common.consumeThreads, 16, (msgs, ctx) -> {
                long now = System.currentTimeMillis();
                for (MessageExt m : msgs) {
                    deliveries.record(ProbeBody.decode(m.getBody()).sequence(), now);
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(verifySeconds);
            while (deliveries.unique() < expected && System.nanoTime() < deadline) {
                Thread.sleep(1000);
            }
            Thread.sleep(2000); // a duplicate would arrive about now
            TransactionBench.progress(out, "read back %d of %d, %d duplicates", deliveries.unique(), expected,
                deliveries.duplicates());
            return deliveries;
        } finally {
            consumer.shutdown();
        }
    }

    /** Commits every transaction at once; a check (none is expected) commits too. */
    private static final class CommitAtOnce implements TransactionListener {
        @Override
        public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }

        @Override
        public LocalTransactionState checkLocalTransaction(MessageExt msg) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }
    }
}
