package io.basalt.tools.bench.delay;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code timer-burst}: {@code --count} timer messages ({@code setDeliverTimeMs}) all due at the same whole second,
 * sent ahead of it; a push consumer runs throughout. Reports lateness from the due second to the broker's put-back
 * and to the consumer, and how long after the due second the last one arrived.
 */
@Command(name = "timer-burst", mixinStandardHelpOptions = true,
    description = "N timer messages due in the same second: lateness p50/p99/max and time to the last delivery.")
final class TimerBurstCase implements Callable<Integer> {
    @CommandLine.Mixin
    DelayBench.Common common = new DelayBench.Common();
    @Option(names = "--count", defaultValue = "100000", description = "timer messages (default: ${DEFAULT-VALUE})")
    int count;
    @Option(names = "--lead-s", defaultValue = "45", description = "the due second is this far after the start (default: ${DEFAULT-VALUE})")
    int leadSeconds;
    @Option(names = "--wait-s", defaultValue = "180", description = "give up this long after the due second (default: ${DEFAULT-VALUE})")
    int waitSeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        BenchClients clients = new BenchClients(common.namesrv);
        String topic = common.unique("burst");
        clients.createTopic(topic, common.queues);
        // A whole second: RocketMQ rounds a multiple of the precision down by one slot and fires the slot at its end,
        // so delivery is due exactly at dueMs and never before.
        long dueMs = (System.currentTimeMillis() / 1000 + leadSeconds) * 1000;
        Lateness lateness = new Lateness(count);
        DefaultMQPushConsumer consumer = clients.startConsumer(topic.replace("DelayBench_", "g_"), topic,
            common.consumeThreads, 16, recorder(lateness));
        DefaultMQProducer producer = clients.startProducer(topic.replace("DelayBench_", "p_"));
        try {
            BenchClients.AsyncSender sender = new BenchClients.AsyncSender(producer, common.window);
            long sendStart = System.nanoTime();
            for (int i = 0; i < count; i++) {
                Message msg = new Message(topic, new ProbeBody(i, dueMs).encode(common.size));
                msg.setDeliverTimeMs(dueMs);
                sender.send(msg, lateness, i);
            }
            sender.drain();
            double sendS = (System.nanoTime() - sendStart) / 1e9;
            long sentBeforeDueMs = dueMs - System.currentTimeMillis();
            DelayBench.progress(out, "sent %d timers in %.1f s (%.0f/s, %d failed%s), %d ms before the due second",
                sender.ok.sum(), sendS, count / sendS, sender.failed.sum(),
                sender.firstError() == null ? "" : ": " + sender.firstError(), sentBeforeDueMs);
            long giveUp = dueMs + TimeUnit.SECONDS.toMillis(waitSeconds);
            while (!lateness.complete() && System.currentTimeMillis() < giveUp) {
                Thread.sleep(1000);
                DelayBench.progress(out, "received %d of %d", lateness.unique(), count);
            }
            lateness.censorMissing(System.currentTimeMillis(), s -> dueMs);
            out.println(String.format(Locale.ROOT, "RESULT %s timer-burst count=%d send_rate=%.0f send_failed=%d sent_before_due_ms=%d ",
                common.label, count, count / sendS, sender.failed.sum(), sentBeforeDueMs)
                + lateness.report().line("").trim());
            out.flush();
            return 0;
        } finally {
            producer.shutdown();
            consumer.shutdown();
        }
    }

    /** Records each delivery: due time from the body, the re-put's store time, the receive time. */
    static MessageListenerConcurrently recorder(Lateness lateness) {
        return (msgs, ctx) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                ProbeBody b = ProbeBody.decode(m.getBody());
                lateness.record(b.sequence(), b.dueMs(), m.getStoreTimestamp(), now);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
    }
}
