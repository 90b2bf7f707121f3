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
 * {@code level-rate}: delivery throughput of one delay level, in one of three modes.
 * <ul>
 *   <li>{@code live} (default): {@code --count} messages of the level sent as fast as the broker takes them while
 *       a consumer runs. They fall due at the rate they were sent, so a broker that delivers a level more slowly
 *       than that builds a backlog and its put-back rate (deliveries per second of store time) is its per-level
 *       delivery rate; a broker that keeps up shows the send rate, a lower bound of its delivery rate.</li>
 *   <li>{@code fill} then {@code drain}: fill sends the messages to {@code --topic} and exits; the broker is then
 *       stopped before any is due and restarted after all are (bin/bench-delay level-backlog does this), so at
 *       restart the whole level is due at once; drain consumes them and reports the put-back rate, which is then
 *       the delivery rate itself, bounded by nothing but the broker.</li>
 * </ul>
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
    @Option(names = "--mode", defaultValue = "live", description = "live, fill or drain (default: ${DEFAULT-VALUE})")
    Mode mode;
    @Option(names = "--topic", description = "the topic (fill and drain must name the same one; default: a new one)")
    String topic;

    enum Mode { live, fill, drain }
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long delayMs = DelayLevels.parse(common.delayLevels).delayMs(level);
        BenchClients clients = new BenchClients(common.namesrv);
        if (topic == null) {
            if (mode == Mode.drain) {
                throw new CommandLine.ParameterException(spec.commandLine(), "drain needs the --topic of its fill");
            }
            topic = common.unique("level" + level);
        }
        if (mode != Mode.drain) {
            clients.createTopic(topic, common.queues);
        }
        if (mode == Mode.fill) {
            return fill(out, clients, delayMs);
        }
        if (mode == Mode.drain) {
            return drain(out, clients, delayMs);
        }
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
                sender.send(msg, lateness, i);
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

    /** Sends the messages and exits; prints the last due time so the caller knows when all are due. */
    private int fill(PrintWriter out, BenchClients clients, long delayMs) throws Exception {
        DefaultMQProducer producer = clients.startProducer(topic.replace("DelayBench_", "p_"));
        try {
            BenchClients.AsyncSender sender = new BenchClients.AsyncSender(producer, common.window);
            long start = System.nanoTime();
            long lastDue = 0;
            for (int i = 0; i < count; i++) {
                lastDue = System.currentTimeMillis() + delayMs;
                Message msg = new Message(topic, new ProbeBody(i, lastDue).encode(common.size));
                msg.setDelayTimeLevel(level);
                sender.send(msg);
            }
            sender.drain();
            double sendS = (System.nanoTime() - start) / 1e9;
            DelayBench.progress(out, "sent %d at level %d (%d ms) in %.1f s (%.0f/s), %d failed%s", sender.ok.sum(), level,
                delayMs, sendS, count / sendS, sender.failed.sum(), sender.firstError() == null ? "" : ": " + sender.firstError());
            out.println(String.format(Locale.ROOT, "FILL topic=%s sent=%d send_failed=%d send_rate=%.0f last_due_ms=%d send_end_ms=%d",
                topic, sender.ok.sum(), sender.failed.sum(), count / sendS, lastDue, System.currentTimeMillis()));
            out.flush();
            return 0;
        } finally {
            producer.shutdown();
        }
    }

    /** Consumes what fill sent, all of it overdue by now, and reports the put-back rate. */
    private int drain(PrintWriter out, BenchClients clients, long delayMs) throws Exception {
        Lateness lateness = new Lateness(count);
        long start = System.currentTimeMillis();
        DefaultMQPushConsumer consumer = clients.startConsumer(topic.replace("DelayBench_", "g_"), topic,
            common.consumeThreads, 16, TimerBurstCase.recorder(lateness));
        try {
            long giveUp = start + TimeUnit.SECONDS.toMillis(waitSeconds);
            long lastUnique = -1;
            int stalledTicks = 0;
            // The fill's failed sends are unknown here: stop once nothing more arrived for 20 s.
            while (!lateness.complete() && System.currentTimeMillis() < giveUp && stalledTicks < 10) {
                Thread.sleep(2000);
                long u = lateness.unique();
                DelayBench.progress(out, "received %d of %d (%.0f/s)", u, count, lastUnique < 0 ? 0 : (u - lastUnique) / 2.0);
                stalledTicks = u > 0 && u == lastUnique ? stalledTicks + 1 : 0;
                lastUnique = u;
            }
            out.println(String.format(Locale.ROOT, "RESULT %s level-backlog level=%d delay_ms=%d count=%d ",
                common.label, level, delayMs, count) + lateness.report().line("").trim());
            out.flush();
            return 0;
        } finally {
            consumer.shutdown();
        }
    }
}
