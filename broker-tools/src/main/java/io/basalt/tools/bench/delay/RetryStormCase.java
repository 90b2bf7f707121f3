package io.basalt.tools.bench.delay;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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
 * {@code retry-storm}: user delay-level messages at {@code --user-rate}, first alone (baseline), then while a
 * second producer sends {@code --rate} msg/s to a topic whose push consumer answers RECONSUME_LATER until a
 * message was retried {@code --retries} times, so the broker takes that many CONSUMER_SEND_MSG_BACK re-puts per
 * second into its retry delay levels. Prints one RESULT line per phase with the user messages' lateness. The
 * default user level is 3, the level RocketMQ's first retry uses, which is where a shared queue would hurt.
 */
@Command(name = "retry-storm", mixinStandardHelpOptions = true,
    description = "User delay-level lateness with and without a stream of consumer retries.")
final class RetryStormCase implements Callable<Integer> {
    @CommandLine.Mixin
    DelayBench.Common common = new DelayBench.Common();
    @Option(names = "--rate", defaultValue = "5000", description = "msg/s to the retried topic (default: ${DEFAULT-VALUE})")
    int rate;
    @Option(names = "--retries", defaultValue = "1", description = "RECONSUME_LATER answers per message (default: ${DEFAULT-VALUE})")
    int retries;
    @Option(names = "--user-rate", defaultValue = "200", description = "user delay-level msg/s (default: ${DEFAULT-VALUE})")
    int userRate;
    @Option(names = "--user-level", defaultValue = "3", description = "user messages' delay level (default: ${DEFAULT-VALUE})")
    int userLevel;
    @Option(names = "--baseline-s", defaultValue = "20", description = "seconds of user messages alone (default: ${DEFAULT-VALUE})")
    int baselineSeconds;
    @Option(names = "--storm-s", defaultValue = "40", description = "seconds of the retry storm (default: ${DEFAULT-VALUE})")
    int stormSeconds;
    @Option(names = "--warmup-s", defaultValue = "15", description = "seconds of user messages first, not measured (default: ${DEFAULT-VALUE})")
    int warmupSeconds;
    @Option(names = "--storm-threads", defaultValue = "64", description = "threads of the retrying consumer (default: ${DEFAULT-VALUE})")
    int stormThreads;
    @Option(names = "--drain-s", defaultValue = "60", description = "wait at most this long for the last user message after it is due (default: ${DEFAULT-VALUE})")
    int drainSeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        DelayLevels levels = DelayLevels.parse(common.delayLevels);
        long userDelayMs = levels.delayMs(userLevel);
        BenchClients clients = new BenchClients(common.namesrv);
        String userTopic = common.unique("user");
        String stormTopic = common.unique("storm");
        clients.createTopic(userTopic, common.queues);
        clients.createTopic(stormTopic, common.queues);
        int baselineCount = userRate * baselineSeconds;
        int stormUserCount = userRate * stormSeconds;
        Lateness warm = new Lateness((long) userRate * warmupSeconds);
        Lateness baseline = new Lateness(baselineCount);
        Lateness duringStorm = new Lateness(stormUserCount);
        MessageListenerConcurrently userListener = (msgs, ctx) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                ProbeBody b = ProbeBody.decode(m.getBody());
                if ("warm".equals(m.getTags())) {
                    warm.record(b.sequence(), b.dueMs(), m.getStoreTimestamp(), now);
                } else {
                    ("storm".equals(m.getTags()) ? duringStorm : baseline).record(b.sequence(), b.dueMs(), m.getStoreTimestamp(), now);
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
        LongAdder firstDeliveries = new LongAdder();
        LongAdder retryDeliveries = new LongAdder();
        AtomicBoolean storming = new AtomicBoolean();
        AtomicLong retriesWhileStorming = new AtomicLong();
        MessageListenerConcurrently stormListener = (msgs, ctx) -> {
            MessageExt m = msgs.get(0);
            if (m.getReconsumeTimes() == 0) {
                firstDeliveries.increment();
            } else {
                retryDeliveries.increment();
                if (storming.get()) {
                    retriesWhileStorming.incrementAndGet();
                }
            }
            return m.getReconsumeTimes() < retries ? ConsumeConcurrentlyStatus.RECONSUME_LATER : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
        DefaultMQPushConsumer userConsumer = clients.startConsumer(userTopic.replace("DelayBench_", "g_"), userTopic,
            common.consumeThreads, 16, userListener);
        DefaultMQPushConsumer stormConsumer = null;
        DefaultMQProducer userProducer = clients.startProducer(userTopic.replace("DelayBench_", "p_"));
        DefaultMQProducer stormProducer = clients.startProducer(stormTopic.replace("DelayBench_", "p_"));
        try {
            BenchClients.AsyncSender userSender = new BenchClients.AsyncSender(userProducer, common.window);
            // JIT, page cache and the level's first deliveries, not measured
            if (warmupSeconds > 0) {
                awaitAll(out, warm, sendUser(userSender, warm, userTopic, "warm", userRate * warmupSeconds, userDelayMs), "warmup");
            }
            long[] baselineDue = sendUser(userSender, baseline, userTopic, "base", baselineCount, userDelayMs);
            awaitAll(out, baseline, baselineDue, "baseline");
            out.println(String.format(Locale.ROOT, "RESULT %s retry-storm phase=baseline user_rate=%d user_level=%d user_delay_ms=%d ",
                common.label, userRate, userLevel, userDelayMs) + baseline.report().line("").trim());
            out.flush();

            stormConsumer = clients.startConsumer(stormTopic.replace("DelayBench_", "g_"), stormTopic, stormThreads, 1,
                stormListener);
            BenchClients.AsyncSender stormSender = new BenchClients.AsyncSender(stormProducer, common.window);
            long stormCount = (long) rate * stormSeconds;
            storming.set(true);
            long stormStart = System.nanoTime();
            Thread storm = new Thread(() -> {
                BenchClients.Pacer pacer = new BenchClients.Pacer(rate);
                try {
                    for (long i = 0; i < stormCount; i++) {
                        pacer.awaitNext();
                        stormSender.send(new Message(stormTopic, new ProbeBody(i, 0).encode(common.size)));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "delaybench-storm-sender");
            storm.start();
            long[] stormDue = sendUser(userSender, duringStorm, userTopic, "storm", stormUserCount, userDelayMs);
            storm.join();
            stormSender.drain();
            double stormS = (System.nanoTime() - stormStart) / 1e9;
            storming.set(false);
            long retriesInWindow = retriesWhileStorming.get();
            awaitAll(out, duringStorm, stormDue, "storm");
            double retryWindowS = Math.max(1, stormS - levels.delayMs(3) / 1000.0);
            out.println(String.format(Locale.ROOT,
                "RESULT %s retry-storm phase=storm user_rate=%d user_level=%d user_delay_ms=%d storm_sent=%d storm_send_failed=%d"
                    + " storm_send_rate=%.0f first_deliveries=%d retries_received=%d retry_rate_per_s=%.0f ",
                common.label, userRate, userLevel, userDelayMs, stormSender.ok.sum(), stormSender.failed.sum(),
                stormSender.ok.sum() / stormS, firstDeliveries.sum(), retryDeliveries.sum(), retriesInWindow / retryWindowS)
                + duringStorm.report().line("").trim());
            out.flush();
            return 0;
        } finally {
            userProducer.shutdown();
            stormProducer.shutdown();
            userConsumer.shutdown();
            if (stormConsumer != null) {
                stormConsumer.shutdown();
            }
        }
    }

    /** Paced user sends with tag {@code tag}; returns each message's due time (send time + the level's delay). */
    private long[] sendUser(BenchClients.AsyncSender sender, Lateness lateness, String topic, String tag, int count, long delayMs) throws InterruptedException {
        long[] due = new long[count];
        BenchClients.Pacer pacer = new BenchClients.Pacer(userRate);
        for (int i = 0; i < count; i++) {
            pacer.awaitNext();
            due[i] = System.currentTimeMillis() + delayMs;
            Message msg = new Message(topic, tag, new ProbeBody(i, due[i]).encode(common.size));
            msg.setDelayTimeLevel(userLevel);
            sender.send(msg, lateness, i);
        }
        sender.drain();
        return due;
    }

    private void awaitAll(PrintWriter out, Lateness lateness, long[] due, String phase) throws InterruptedException {
        long giveUp = due[due.length - 1] + TimeUnit.SECONDS.toMillis(drainSeconds);
        while (!lateness.complete() && System.currentTimeMillis() < giveUp) {
            Thread.sleep(1000);
        }
        DelayBench.progress(out, "%s: received %d of %d user messages", phase, lateness.unique(), due.length);
        lateness.censorMissing(System.currentTimeMillis(), s -> due[(int) s]);
    }
}
