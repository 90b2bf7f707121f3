package io.basalt.tools.bench.grpc;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.tools.bench.transaction.ProcessCpu;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * SimpleConsumer throughput: first MESSAGES are sent (16 threads, not measured) to a topic no one consumes yet, then
 * CONSUMERS SimpleConsumers of one new group each loop receive(BATCH, 30 s invisible) and ack every message
 * (the acks of one batch in flight together, ackAsync), until
 * all were acked once or MEASURE seconds passed. Reports acked messages/s over the consume window, duplicates
 * (a message id seen twice: re-delivered after its invisible time), and the broker's CPU per 1,000 messages.
 * A fresh topic must be used per run: a new group starts at the queues' first offsets on a fresh store.
 */
@Command(name = "receive", mixinStandardHelpOptions = true, description = "SimpleConsumer receive + ack throughput.")
final class ReceiveCase implements Callable<Integer> {
    @CommandLine.Mixin
    GrpcBench.Common common = new GrpcBench.Common();
    @CommandLine.Option(names = "--messages", defaultValue = "200000", description = "messages to pre-fill (default: ${DEFAULT-VALUE})")
    int messages;
    @CommandLine.Option(names = "--consumers", defaultValue = "4", description = "SimpleConsumer threads (default: ${DEFAULT-VALUE})")
    int consumers;
    @CommandLine.Option(names = "--batch", defaultValue = "32", description = "maxMessageNum of each receive (default: ${DEFAULT-VALUE})")
    int batch;
    @CommandLine.Option(names = "--group", defaultValue = "GrpcBenchReceive", description = "consumer group (default: ${DEFAULT-VALUE})")
    String group;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        GrpcClients clients = common.clients();
        ProcessCpu cpu = common.cpu();
        prefill(out, clients);

        ConcurrentHashMap<String, Boolean> seen = new ConcurrentHashMap<>();
        AtomicLong acked = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(common.measureSeconds);
        List<SimpleConsumer> simpleConsumers = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            simpleConsumers.add(clients.simpleConsumer(group, common.topic, Duration.ofSeconds(5)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        long cpu0 = GrpcBench.cpuMicros(cpu);
        long t0 = System.nanoTime();
        AtomicLong lastAck = new AtomicLong(t0);
        List<Future<?>> loops = new ArrayList<>();
        for (SimpleConsumer consumer : simpleConsumers) {
            loops.add(pool.submit(() -> {
                while (seen.size() < messages && System.nanoTime() < deadline) {
                    List<MessageView> views;
                    try {
                        views = consumer.receive(batch, Duration.ofSeconds(30));
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        continue;
                    }
                    // every message is acked on its own; the acks of one batch are in flight together
                    List<CompletableFuture<Void>> acks = new ArrayList<>(views.size());
                    for (MessageView view : views) {
                        acks.add(consumer.ackAsync(view).thenRun(() -> {
                            acked.incrementAndGet();
                            lastAck.set(System.nanoTime());
                            if (seen.putIfAbsent(view.getMessageId().toString(), Boolean.TRUE) != null) {
                                duplicates.incrementAndGet();
                            }
                        }).exceptionally(e -> {
                            failed.incrementAndGet();
                            return null;
                        }));
                    }
                    CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).join();
                }
                return null;
            }));
        }
        for (Future<?> loop : loops) {
            loop.get();
        }
        long elapsedNanos = lastAck.get() - t0;
        long cpuUsed = GrpcBench.cpuMicros(cpu) - cpu0;
        pool.shutdown();
        for (SimpleConsumer consumer : simpleConsumers) {
            consumer.close();
        }
        out.printf(Locale.ROOT, "RESULT %s receive consumers=%d batch=%d size=%d msgs_per_s=%.0f acked=%d unique=%d of=%d"
                + " duplicates=%d failed=%d seconds=%.1f broker_cpu_ms_per_1k=%s%n",
            common.label, consumers, batch, common.size, acked.get() * 1e9 / Math.max(1, elapsedNanos), acked.get(),
            seen.size(), messages, duplicates.get(), failed.get(), elapsedNanos / 1e9,
            GrpcBench.cpuMsPer1k(cpu, cpuUsed, acked.get()));
        out.flush();
        return seen.size() >= messages ? 0 : 1;
    }

    private void prefill(PrintWriter out, GrpcClients clients) throws Exception {
        AtomicLong next = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try (Producer producer = clients.producer(common.topic)) {
            var message = clients.message(common.topic, new byte[common.size]);
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<?>> senders = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                senders.add(pool.submit(() -> {
                    while (next.getAndIncrement() < messages) {
                        boolean sent = false;
                        for (int attempt = 0; attempt < 5 && !sent; attempt++) {
                            try {
                                producer.send(message);
                                sent = true;
                            } catch (Exception e) {
                                failed.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : senders) {
                f.get();
            }
            pool.shutdown();
        }
        GrpcBench.progress(out, "pre-filled %d messages of %d bytes (%d failed attempts)", messages, common.size, failed.get());
    }
}
