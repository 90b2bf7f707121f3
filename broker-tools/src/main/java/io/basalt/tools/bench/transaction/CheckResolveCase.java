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
 * {@code check-resolve}: {@code --count} transactional messages whose local transaction answers UNKNOW, sent from
 * {@code --threads} threads; the producer's {@code checkLocalTransaction} answers COMMIT_MESSAGE and logs each call
 * by transaction id. A push consumer runs throughout. Reports how long after the last send the first check came,
 * all were checked and all were delivered, how many checks each half message got and how close two checks of the
 * same one came (the goal: at most one per {@code transactionCheckInterval}); the resolve span, first check to last
 * delivery, is the broker's own part, independent of where the first check falls in the interval. After the last delivery the case
 * lingers {@code --linger-s} more, so that checks the broker still sends for decided transactions are counted.
 */
@Command(name = "check-resolve", mixinStandardHelpOptions = true,
    description = "N UNKNOW transactions resolved by the back-check: time to all delivered, checks per transaction.")
final class CheckResolveCase implements Callable<Integer> {
    @CommandLine.Mixin
    TransactionBench.Common common = new TransactionBench.Common();
    @Option(names = "--count", defaultValue = "10000", description = "transactions (default: ${DEFAULT-VALUE})")
    int count;
    @Option(names = "--check-interval-ms", defaultValue = "30000",
        description = "the broker's transactionCheckInterval, for the storm figure (default: ${DEFAULT-VALUE})")
    long checkIntervalMs;
    @Option(names = "--check-threads", defaultValue = "4", description = "the producer's check executor threads (default: ${DEFAULT-VALUE})")
    int checkThreads;
    @Option(names = "--wait-s", defaultValue = "600", description = "give up this long after the last send (default: ${DEFAULT-VALUE})")
    int waitSeconds;
    @Option(names = "--linger-s", defaultValue = "0",
        description = "seconds to go on counting checks after the last delivery (default: 2 check intervals)")
    int lingerSeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        BenchClients clients = new BenchClients(common.namesrv);
        String topic = common.unique("check");
        clients.createTopic(topic, common.queues);
        ProcessCpu cpu = common.cpu();
        String loadBefore = TransactionBench.loadAverage();
        CheckLog checks = new CheckLog();
        Deliveries deliveries = new Deliveries();
        DefaultMQPushConsumer consumer = clients.startConsumer(topic.replace("TxBench_", "g_"), topic,
            common.consumeThreads, 16, (msgs, ctx) -> {
                long now = System.currentTimeMillis();
                for (MessageExt m : msgs) {
                    deliveries.record(ProbeBody.decode(m.getBody()).sequence(), now);
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        TransactionMQProducer producer = TxProducers.start(common.namesrv, topic.replace("TxBench_", "p_"),
            new UnknownThenCommit(checks), checkThreads);
        try {
            long cpuStart = cpu.cpuMicros();
            long sendStartMs = System.currentTimeMillis();
            AtomicLong next = new AtomicLong();
            LongAdder halfSent = new LongAdder();
            LongAdder failed = new LongAdder();
            AtomicReference<String> firstError = new AtomicReference<>();
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < common.threads; t++) {
                Thread sender = new Thread(() -> {
                    long seq;
                    while ((seq = next.getAndIncrement()) < count) {
                        try {
                            TransactionSendResult r = producer.sendMessageInTransaction(
                                new Message(topic, new ProbeBody(seq, 0).encode(common.size)), null);
                            if (r.getSendStatus() == SendStatus.SEND_OK) {
                                halfSent.increment();
                            } else {
                                failed.increment();
                                firstError.compareAndSet(null, String.valueOf(r.getSendStatus()));
                            }
                        } catch (Exception e) {
                            failed.increment();
                            firstError.compareAndSet(null, TransactionBench.describe(e));
                        }
                    }
                }, "txbench-sender-" + t);
                senders.add(sender);
                sender.start();
            }
            for (Thread sender : senders) {
                sender.join();
            }
            long sentMs = System.currentTimeMillis();
            long expected = halfSent.sum();
            TransactionBench.progress(out, "sent %d half messages in %.1f s (%d failed%s); waiting for the checks",
                expected, (sentMs - sendStartMs) / 1000.0, failed.sum(), firstError.get() == null ? "" : ": " + firstError.get());

            long giveUp = sentMs + TimeUnit.SECONDS.toMillis(waitSeconds);
            while (deliveries.unique() < expected && System.currentTimeMillis() < giveUp) {
                Thread.sleep(1000);
                long s = (System.currentTimeMillis() - sentMs) / 1000;
                if (s % 5 == 0) {
                    TransactionBench.progress(out, "%d s: %d checked, %d delivered", s, checks.checked(), deliveries.unique());
                }
            }
            long allDeliveredMs = deliveries.unique() >= expected ? deliveries.lastNewMs() : -1;
            long cpuUs = cpu.cpuMicros() - cpuStart;
            int linger = lingerSeconds > 0 ? lingerSeconds : (int) Math.max(5, 2 * checkIntervalMs / 1000);
            TransactionBench.progress(out, "%d of %d delivered; counting checks for %d s more", deliveries.unique(),
                expected, linger);
            Thread.sleep(TimeUnit.SECONDS.toMillis(linger));
            CheckLog.Summary summary = checks.summary(checkIntervalMs);
            out.println(String.format(Locale.ROOT,
                "RESULT %s check-resolve count=%d sent=%d send_failed=%d send_s=%.1f check_interval_ms=%d"
                    + " first_check_s=%s all_checked_s=%s all_delivered_s=%s resolve_span_s=%s delivered=%d missing=%d duplicates=%d %s"
                    + " cpu_us_per_tx=%s load=%s..%s",
                common.label, count, expected, failed.sum(), (sentMs - sendStartMs) / 1000.0, checkIntervalMs,
                since(sentMs, summary.firstMs()), summary.transactions() >= expected ? since(sentMs, summary.lastFirstMs()) : "-", since(sentMs, allDeliveredMs),
                summary.firstMs() < 0 || allDeliveredMs < 0 ? "-" : since(summary.firstMs(), allDeliveredMs),
                deliveries.unique(), expected - deliveries.unique(), deliveries.duplicates(), summary.line(),
                cpu.known() && expected > 0 ? String.format(Locale.ROOT, "%.1f", (double) cpuUs / expected) : "?",
                loadBefore, TransactionBench.loadAverage()));
            out.flush();
            return 0;
        } finally {
            producer.shutdown();
            consumer.shutdown();
        }
    }

    /** Seconds from {@code fromMs} to {@code toMs}, "-" when {@code toMs} never happened. */
    private static String since(long fromMs, long toMs) {
        return toMs < 0 ? "-" : String.format(Locale.ROOT, "%.1f", (toMs - fromMs) / 1000.0);
    }

    /** The local transaction never knows; the check commits, and is logged by transaction id. */
    private static final class UnknownThenCommit implements TransactionListener {
        private final CheckLog checks;

        UnknownThenCommit(CheckLog checks) {
            this.checks = checks;
        }

        @Override
        public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
            return LocalTransactionState.UNKNOW;
        }

        @Override
        public LocalTransactionState checkLocalTransaction(MessageExt msg) {
            checks.record(msg.getTransactionId(), System.currentTimeMillis());
            return LocalTransactionState.COMMIT_MESSAGE;
        }
    }
}
