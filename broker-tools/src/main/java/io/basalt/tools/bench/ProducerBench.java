package io.basalt.tools.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mqbench producer}: sends fixed-size messages from N threads for a duration or a count. */
@Command(name = "producer", mixinStandardHelpOptions = true, description = "Send messages as fast as the broker takes them.")
final class ProducerBench implements Callable<Integer> {
    enum Mode { sync, async, oneway }

    @Option(names = {"-n", "--namesrv"}, defaultValue = "127.0.0.1:10911",
        description = "NameServer address(es); a Basalt broker answers route queries itself (default: ${DEFAULT-VALUE})")
    String namesrv;
    @Option(names = {"-t", "--threads"}, defaultValue = "16", description = "sending threads (default: ${DEFAULT-VALUE})")
    int threads;
    @Option(names = {"-s", "--size"}, defaultValue = "1024", description = "message body bytes (default: ${DEFAULT-VALUE})")
    int size;
    @Option(names = {"-d", "--duration"}, defaultValue = "0", description = "seconds to run (0: until --count)")
    int durationSeconds;
    @Option(names = {"-c", "--count"}, defaultValue = "0", description = "messages to send in total (0: until --duration)")
    long count;
    @Option(names = {"--topic"}, defaultValue = "BenchmarkTest", description = "topic (default: ${DEFAULT-VALUE})")
    String topic;
    @Option(names = {"-m", "--mode"}, defaultValue = "sync", description = "sync, async or oneway (default: ${DEFAULT-VALUE})")
    Mode mode;
    @Option(names = {"--max-in-flight"}, defaultValue = "1024", description = "async sends outstanding at most (default: ${DEFAULT-VALUE})")
    int maxInFlight;
    @Option(names = {"-w", "--warmup"}, defaultValue = "0",
        description = "seconds of sending before the measured --duration or --count starts, in this JVM, so that the"
            + " client's JIT is warm too; its numbers are printed and left out of the summary (default: ${DEFAULT-VALUE})")
    int warmupSeconds;
    @Option(names = {"-g", "--group"}, defaultValue = "mqbench_producer", description = "producer group (default: ${DEFAULT-VALUE})")
    String group;

    @picocli.CommandLine.Mixin
    io.basalt.tools.ClientSecurityOptions security;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (durationSeconds <= 0 && count <= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give --duration or --count");
        }
        if (warmupSeconds < 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--warmup must be 0 or more");
        }
        if (threads < 1 || size < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--threads and --size must be at least 1");
        }
        java.io.PrintWriter out = spec.commandLine().getOut();
        DefaultMQProducer producer = new DefaultMQProducer(group, security.rpcHook());
        producer.setUseTLS(security.tls());
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("mqbench-" + ProcessHandle.current().pid());
        producer.setMaxMessageSize(Math.max(4 * 1024 * 1024, size + 1024));
        producer.start();
        out.printf("mqbench producer: topic %s, %d threads, %d-byte bodies, %s sends, %s to %s%n", topic, threads, size,
            mode, durationSeconds > 0 ? durationSeconds + " s" : count + " messages", namesrv);
        byte[] body = new byte[size];
        java.util.Arrays.fill(body, (byte) 'x');
        BenchReport report;
        try {
            if (warmupSeconds > 0) {
                BenchReport warmup = new BenchReport(out, "warm-up send");
                run(producer, body, TimeUnit.SECONDS.toNanos(warmupSeconds), Long.MAX_VALUE, warmup, false);
                out.printf("warm-up done: %d sent, %d errors; measuring%n", warmup.successes(), warmup.errors());
                out.flush();
            }
            report = new BenchReport(out, "send");
            run(producer, body, durationSeconds > 0 ? TimeUnit.SECONDS.toNanos(durationSeconds) : Long.MAX_VALUE,
                count > 0 ? count : Long.MAX_VALUE, report, true);
        } finally {
            producer.shutdown();
        }
        return report.errors() == 0 ? 0 : 1;
    }

    /**
     * Sends from {@code threads} threads for {@code nanos} or {@code count} messages, whichever ends first, ticking
     * {@code report} every second; returns when every send has been answered, after the report's summary if
     * {@code summarize}.
     */
    private void run(DefaultMQProducer producer, byte[] body, long nanos, long count, BenchReport report,
                     boolean summarize)
        throws InterruptedException {
        long deadline = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + nanos;
        AtomicLong remaining = new AtomicLong(count);
        Semaphore inFlight = new Semaphore(maxInFlight);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> sendLoop(producer, body, deadline, remaining, inFlight, report), "mqbench-producer-" + i);
            t.start();
            workers.add(t);
        }
        while (workers.stream().anyMatch(Thread::isAlive)) {
            for (Thread t : workers) {
                t.join(1000);
                if (t.isAlive()) {
                    break;
                }
            }
            report.tick();
        }
        inFlight.acquire(maxInFlight);
        if (summarize) {
            // Before the producer's shutdown, so that the summary's time is the sending time.
            report.summary();
        }
    }

    private void sendLoop(DefaultMQProducer producer, byte[] body, long deadline, AtomicLong remaining, Semaphore inFlight,
        BenchReport report) {
        while (System.nanoTime() < deadline && remaining.getAndDecrement() > 0) {
            Message msg = new Message(topic, body);
            long begin = System.nanoTime();
            try {
                switch (mode) {
                    case sync -> {
                        SendResult r = producer.send(msg);
                        if (r.getSendStatus() == SendStatus.SEND_OK) {
                            report.success(System.nanoTime() - begin);
                        } else {
                            report.error();
                        }
                    }
                    case oneway -> {
                        producer.sendOneway(msg);
                        report.success(System.nanoTime() - begin);
                    }
                    case async -> {
                        inFlight.acquire();
                        producer.send(msg, new SendCallback() {
                            @Override
                            public void onSuccess(SendResult r) {
                                inFlight.release();
                                report.success(System.nanoTime() - begin);
                            }

                            @Override
                            public void onException(Throwable e) {
                                inFlight.release();
                                report.error();
                            }
                        });
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (mode == Mode.async) {
                    inFlight.release();
                }
                report.error();
            }
        }
    }
}
