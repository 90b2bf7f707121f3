package io.basalt.tools.bench.delay;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code level-rate}: {@code --count} messages of one delay level sent as fast as the broker takes them while a
 * consumer runs. They fall due at the rate they were sent, so a broker that delivers a level more slowly than
 * that builds a backlog and its put-back rate (deliveries per second of store time) is its per-level delivery
 * rate; a broker that keeps up shows the send rate, a lower bound of its delivery rate.
 */
@Command(name = "level-rate", mixinStandardHelpOptions = true,
    description = "Delivery throughput of one delay level: deliveries per second and lateness.")
final class LevelRateCase implements Callable<Integer> {
    @CommandLine.Mixin
    DelayBench.Common common = new DelayBench.Common();
    @Option(names = "--count", defaultValue = "200000", description = "messages (default: ${DEFAULT-VALUE})")
    int count;
    @Option(names = "--level", defaultValue = "1", description = "delay level (default: ${DEFAULT-VALUE})")
    int level;
    @Option(names = "--wait-s", defaultValue = "600", description = "give up this long after the last send (default: ${DEFAULT-VALUE})")
    int waitSeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long delayMs = DelayLevels.parse(common.delayLevels).delayMs(level);
        BenchClients clients = new BenchClients(common.namesrv);
        String topic = common.unique("level" + level);
        clients.createTopic(topic, common.queues);
        Lateness lateness = new Lateness(count);
        long[] due = new long[count];
        DefaultMQPushConsumer consumer = clients.startConsumer(topic.replace("DelayBench_", "g_"), topic,
            common.consumeThreads, 16, TimerBurstCase.recorder(lateness));
        DefaultMQProducer producer = clients.startProducer(topic.replace("DelayBench_", "p_"));
        try {
            BenchClients.AsyncSender sender = new BenchClients.AsyncSender(producer, common.window);
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                due[i] = System.currentTimeMillis() + delayMs;
                Message msg = new Message(topic, new ProbeBody(i, due[i]).encode(common.size));
                msg.setDelayTimeLevel(level);
                sender.send(msg);
            }
            sender.drain();
            double sendS = (System.nanoTime() - start) / 1e9;
            DelayBench.progress(out, "sent %d at level %d (%d ms) in %.1f s (%.0f/s), %d failed%s", sender.ok.sum(), level,
                delayMs, sendS, count / sendS, sender.failed.sum(), sender.firstError() == null ? "" : ": " + sender.firstError());
            long giveUp = System.currentTimeMillis() + delayMs + TimeUnit.SECONDS.toMillis(waitSeconds);
            long lastUnique = -1;
            while (!lateness.complete() && System.currentTimeMillis() < giveUp) {
                Thread.sleep(2000);
                long u = lateness.unique();
                DelayBench.progress(out, "received %d of %d (%.0f/s)", u, count, lastUnique < 0 ? 0 : (u - lastUnique) / 2.0);
                lastUnique = u;
            }
            lateness.censorMissing(System.currentTimeMillis(), s -> due[(int) s]);
            out.println(String.format(Locale.ROOT, "RESULT %s level-rate level=%d delay_ms=%d count=%d send_rate=%.0f send_failed=%d ",
                common.label, level, delayMs, count, count / sendS, sender.failed.sum()) + lateness.report().line("").trim());
            out.flush();
            return 0;
        } finally {
            producer.shutdown();
            consumer.shutdown();
        }
    }
}
