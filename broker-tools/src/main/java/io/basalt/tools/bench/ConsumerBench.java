package io.basalt.tools.bench;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mqbench consumer}: a push consumer counting what it receives; the latency is end to end
 * (receive time minus the message's born timestamp, so producer and consumer clocks must agree).
 */
@Command(name = "consumer", mixinStandardHelpOptions = true, description = "Consume a topic and report TPS and end-to-end latency.")
final class ConsumerBench implements Callable<Integer> {
    @Option(names = {"-n", "--namesrv"}, defaultValue = "127.0.0.1:10911", description = "NameServer address(es) (default: ${DEFAULT-VALUE})")
    String namesrv;
    @Option(names = {"--topic"}, defaultValue = "BenchmarkTest", description = "topic (default: ${DEFAULT-VALUE})")
    String topic;
    @Option(names = {"-g", "--group"}, defaultValue = "mqbench_consumer", description = "consumer group (default: ${DEFAULT-VALUE})")
    String group;
    @Option(names = {"-t", "--threads"}, defaultValue = "20", description = "consuming threads (default: ${DEFAULT-VALUE})")
    int threads;
    @Option(names = {"-d", "--duration"}, defaultValue = "0", description = "seconds to run (0: until --count)")
    int durationSeconds;
    @Option(names = {"-c", "--count"}, defaultValue = "0", description = "messages to receive (0: until --duration)")
    long count;

    @picocli.CommandLine.Mixin
    io.basalt.tools.ClientSecurityOptions security;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (durationSeconds <= 0 && count <= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give --duration or --count");
        }
        java.io.PrintWriter out = spec.commandLine().getOut();
        BenchReport report = new BenchReport(out, "recv");
        CountDownLatch done = new CountDownLatch(1);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group, security.rpcHook());
        consumer.setUseTLS(security.tls());
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("mqbench-" + ProcessHandle.current().pid());
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                report.success(TimeUnit.MILLISECONDS.toNanos(Math.max(0, now - m.getBornTimestamp())));
            }
            if (count > 0 && report.successes() >= count) {
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        out.printf("mqbench consumer: topic %s, group %s, %s from %s%n", topic, group,
            durationSeconds > 0 ? durationSeconds + " s" : count + " messages", namesrv);
        long deadline = durationSeconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(durationSeconds) : Long.MAX_VALUE;
        try {
            while (System.nanoTime() < deadline && !done.await(1, TimeUnit.SECONDS)) {
                report.tick();
            }
            report.tick();
            report.summary();
        } finally {
            consumer.shutdown();
        }
        return count > 0 && report.successes() < count ? 1 : 0;
    }
}
