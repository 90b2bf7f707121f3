package io.basalt.tools.bench.delay;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pending}: fills the broker with {@code --timers} timer messages and {@code --delayed} delay-level messages
 * that are due far away, and samples the broker's live heap (after a full GC), RSS (anonymous and file-backed) and
 * the bytes it wrote, before and after. Nothing is consumed: the point is what pending messages cost while they wait.
 */
@Command(name = "pending", mixinStandardHelpOptions = true,
    description = "Many pending timers and delayed messages: broker heap, RSS and disk bytes before and after.")
final class PendingCase implements Callable<Integer> {
    @CommandLine.Mixin
    DelayBench.Common common = new DelayBench.Common();
    @Option(names = "--timers", defaultValue = "500000", description = "timer messages (default: ${DEFAULT-VALUE})")
    int timers;
    @Option(names = "--delayed", defaultValue = "500000", description = "delay-level messages (default: ${DEFAULT-VALUE})")
    int delayed;
    @Option(names = "--timer-delay-s", defaultValue = "3600", description = "timers are due this far ahead (default: ${DEFAULT-VALUE})")
    int timerDelaySeconds;
    @Option(names = "--level", defaultValue = "17", description = "delay level of the delayed messages (default: ${DEFAULT-VALUE}, 1 h in RocketMQ's default levels)")
    int level;
    @Option(names = "--settle-s", defaultValue = "20", description = "wait after the last send before sampling, for the timer enqueue to finish (default: ${DEFAULT-VALUE})")
    int settleSeconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (common.brokerPid <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "pending needs --broker-pid");
        }
        DelayLevels levels = DelayLevels.parse(common.delayLevels);
        BrokerProbe probe = new BrokerProbe(common.brokerPid);
        BenchClients clients = new BenchClients(common.namesrv);
        String timerTopic = common.unique("pendingTimer");
        String delayTopic = common.unique("pendingDelay");
        clients.createTopic(timerTopic, common.queues);
        clients.createTopic(delayTopic, common.queues);
        BrokerProbe.Sample before = probe.sample(true);
        DelayBench.progress(out, "before: %s", before.line("before", before));
        DefaultMQProducer producer = clients.startProducer(timerTopic.replace("DelayBench_", "p_"));
        long sent;
        double sendS;
        long failed;
        try {
            BenchClients.AsyncSender sender = new BenchClients.AsyncSender(producer, common.window);
            long start = System.nanoTime();
            for (int i = 0; i < Math.max(timers, delayed); i++) {
                long now = System.currentTimeMillis();
                if (i < timers) {
                    Message t = new Message(timerTopic, new ProbeBody(i, now + timerDelaySeconds * 1000L).encode(common.size));
                    t.setDeliverTimeMs(now + timerDelaySeconds * 1000L);
                    sender.send(t);
                }
                if (i < delayed) {
                    Message d = new Message(delayTopic, new ProbeBody(i, now + levels.delayMs(level)).encode(common.size));
                    d.setDelayTimeLevel(level);
                    sender.send(d);
                }
                if (i > 0 && i % 100_000 == 0) {
                    DelayBench.progress(out, "sent %d timers and %d delayed", Math.min(i, timers), Math.min(i, delayed));
                }
            }
            sender.drain();
            sendS = (System.nanoTime() - start) / 1e9;
            sent = sender.ok.sum();
            failed = sender.failed.sum();
            DelayBench.progress(out, "sent %d in %.1f s (%.0f/s), %d failed%s", sent, sendS, sent / sendS, failed,
                sender.firstError() == null ? "" : ": " + sender.firstError());
        } finally {
            producer.shutdown();
        }
        Thread.sleep(settleSeconds * 1000L);
        BrokerProbe.Sample after = probe.sample(true);
        Map<String, String> info = clients.runtimeInfo();
        String infoKeys = String.format(Locale.ROOT, "timerCongestNum=%s timerOffsetBehind=%s timerReadBehind=%s scheduleMessageOffset_%d=%s",
            info.get("timerCongestNum"), info.get("timerOffsetBehind"), info.get("timerReadBehind"), level,
            String.valueOf(info.get("scheduleMessageOffset_" + level)).replace(',', '/'));
        out.println(String.format(Locale.ROOT, "RESULT %s pending timers=%d delayed=%d sent=%d send_failed=%d send_rate=%.0f %s %s %s",
            common.label, timers, delayed, sent, failed, sent / sendS,
            before.line("before", before).replaceAll(" heap_growth.*", ""), after.line("after", before), infoKeys));
        out.flush();
        return 0;
    }
}
