package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * End-to-end replication benchmark (not a test): a master and a slave broker process on loopback,
 * the official 5.2.0 producer sends 1 KiB messages synchronously from N threads to the master, and
 * TPS and latency percentiles (microseconds) are printed for each master role. Arguments (optional):
 * threads (16), seconds (15), warm-up seconds (5), roles (ASYNC_MASTER,SYNC_MASTER). Run from the
 * module's test class path, like {@code io.basalt.it.SendBenchmark}.
 */
public final class HASendBenchmark {
    private HASendBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String[] roles = (args.length > 3 ? args[3] : "ASYNC_MASTER,SYNC_MASTER").split(",");
        for (String role : roles) {
            run(role, threads, seconds, warmup);
        }
    }

    private static void run(String role, int threads, int seconds, int warmup) throws Exception {
        Path dir = Files.createTempDirectory("basalt-ha-bench");
        int haPort = BrokerProcess.freePort();
        Map<String, String> common = Map.of("mappedFileSizeCommitLog", Integer.toString(256 << 20),
            "mappedFileSizeConsumeQueue", Integer.toString(6_000_000), "defaultTopicQueueNums", "8",
            "maxHashSlotNum", "500000", "maxIndexNum", "2000000");
        Map<String, String> masterConf = new java.util.HashMap<>(common);
        masterConf.putAll(Map.of("brokerRole", role, "haListenPort", Integer.toString(haPort)));
        Map<String, String> slaveConf = new java.util.HashMap<>(common);
        slaveConf.putAll(Map.of("brokerRole", "SLAVE", "brokerId", "1",
            "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + haPort));
        BrokerProcess master = BrokerProcess.create(dir.resolve("master"), masterConf);
        BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), slaveConf);
        DefaultMQProducer producer = null;
        try {
            master.start();
            slave.start();
            producer = Clients.producer(master, "pg-ha-bench");
            producer.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
            byte[] body = new byte[1024];
            ThreadLocalRandom.current().nextBytes(body);
            DefaultMQProducer p = producer;
            await().atMost(ofSeconds(30)).until(() ->
                p.send(new Message("BenchTopic", body)).getSendStatus() == SendStatus.SEND_OK);
            Recorder recorder = new Recorder(3);
            AtomicLong errors = new AtomicLong();
            long warmEnd = System.nanoTime() + warmup * 1_000_000_000L;
            long end = warmEnd + seconds * 1_000_000_000L;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    while (true) {
                        long start = System.nanoTime();
                        if (start >= end) {
                            return;
                        }
                        try {
                            if (p.send(new Message("BenchTopic", body)).getSendStatus() != SendStatus.SEND_OK) {
                                errors.incrementAndGet();
                            }
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                        if (start >= warmEnd) {
                            recorder.recordValue((System.nanoTime() - start) / 1000);
                        }
                    }
                }, "bench-sender-" + t);
                w.start();
                workers.add(w);
            }
            await().atMost(ofSeconds(warmup + 5L)).until(() -> System.nanoTime() >= warmEnd);
            recorder.reset();
            for (Thread w : workers) {
                w.join();
            }
            Histogram h = recorder.getIntervalHistogram();
            System.out.printf("role=%s threads=%d seconds=%d body=1KiB sends=%d errors=%d TPS=%.0f "
                    + "latency us: p50=%d p99=%d p999=%d max=%d%n", role, threads, seconds, h.getTotalCount(),
                errors.get(), h.getTotalCount() / (double) seconds, h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
        } finally {
            if (producer != null) {
                producer.shutdown();
            }
            slave.close();
            master.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
