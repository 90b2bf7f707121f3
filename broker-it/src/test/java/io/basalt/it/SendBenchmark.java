package io.basalt.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * End-to-end send benchmark (not a test): starts a broker process, then the official 5.2.0 producer
 * sends 1 KiB messages synchronously from N threads for D seconds after a warm-up, and prints TPS and
 * latency percentiles (HdrHistogram, microseconds). Arguments (all optional): threads (16), seconds (20),
 * warm-up seconds (5), flushDiskType (ASYNC_FLUSH). Run from the module's test class path, e.g.
 * {@code java -cp "$(cat target/test-classpath.txt):target/test-classes" io.basalt.it.SendBenchmark}.
 */
public final class SendBenchmark {
    private SendBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String flush = args.length > 3 ? args[3] : "ASYNC_FLUSH";
        Path dir = Files.createTempDirectory("basalt-bench");
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("mappedFileSizeCommitLog", Integer.toString(256 << 20),
            "mappedFileSizeConsumeQueue", Integer.toString(6_000_000), "flushDiskType", flush,
            "defaultTopicQueueNums", "8", "maxHashSlotNum", "500000", "maxIndexNum", "2000000",
            "maxMessageSize", Integer.toString(4 << 20)));
        DefaultMQProducer producer = null;
        try {
            broker.start();
            producer = Clients.producer(broker, "pg-bench");
            producer.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
            byte[] body = new byte[1024];
            ThreadLocalRandom.current().nextBytes(body);
            producer.send(new Message("BenchTopic", body));
            Recorder recorder = new Recorder(3);
            AtomicLong errors = new AtomicLong();
            long warmEnd = System.nanoTime() + warmup * 1_000_000_000L;
            long end = warmEnd + seconds * 1_000_000_000L;
            List<Thread> workers = new ArrayList<>();
            DefaultMQProducer p = producer;
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    while (true) {
                        long start = System.nanoTime();
                        if (start >= end) {
                            return;
                        }
                        try {
                            SendStatus status = p.send(new Message("BenchTopic", body)).getSendStatus();
                            if (status != SendStatus.SEND_OK) {
                                errors.incrementAndGet();
                            }
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                        long now = System.nanoTime();
                        if (start >= warmEnd) {
                            recorder.recordValue((now - start) / 1000);
                        }
                    }
                }, "bench-sender-" + t);
                w.start();
                workers.add(w);
            }
            Thread.sleep(Math.max(0, (warmEnd - System.nanoTime()) / 1_000_000));
            recorder.reset();
            for (Thread w : workers) {
                w.join();
            }
            Histogram h = recorder.getIntervalHistogram();
            System.out.printf("threads=%d seconds=%d flush=%s body=1KiB sends=%d errors=%d%n", threads, seconds, flush,
                h.getTotalCount(), errors.get());
            System.out.printf("TPS=%.0f%n", h.getTotalCount() / (double) seconds);
            System.out.printf("latency us: p50=%d p99=%d p999=%d max=%d mean=%.0f%n", h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
        } finally {
            if (producer != null) {
                producer.shutdown();
            }
            broker.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
