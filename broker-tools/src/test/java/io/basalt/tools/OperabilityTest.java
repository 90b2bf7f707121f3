package io.basalt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.basalt.it.BrokerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One Basalt broker process for the whole class (each JVM start of the official tools costs seconds):
 * metrics after known traffic, consumer lag against committed offsets, every documented bin/mqadmin
 * subcommand, bin/mqbench, and the status page in headless Chromium.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperabilityTest {
    private static final String CLUSTER = "DefaultCluster";

    @TempDir
    static Path dir;
    private BrokerProcess broker;
    private DefaultMQProducer producer;

    @BeforeAll
    void startBroker() throws Exception {
        broker = BrokerProcess.start(dir.resolve("broker"));
    }

    @AfterAll
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    /** One producer per test: its connections and pool threads start and stop within the test. */
    @BeforeEach
    void startProducer() throws Exception {
        producer = new DefaultMQProducer("ops_test_producer");
        producer.setNamesrvAddr(broker.address());
        producer.setInstanceName("ops-test");
        producer.start();
    }

    @AfterEach
    void stopProducer() {
        if (producer != null) {
            producer.shutdown();
        }
    }

    private String metrics() throws Exception {
        return Scripts.get(broker.metricsPort(), "/metrics");
    }

    private Path out(String name) {
        return dir.resolve(name + ".out");
    }

    private List<SendResult> send(String topic, int count, int bodySize, String keyPrefix) throws Exception {
        List<SendResult> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = new Message(topic, "TagA", keyPrefix + i, new byte[bodySize]);
            SendResult r = producer.send(m);
            assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            results.add(r);
        }
        return results;
    }

    @Test
    @Order(1)
    void metricsCountExactlyWhatWasSent() throws Exception {
        String before = metrics();
        double putOkBefore = Scripts.sample(before, "basalt_put_requests_total{status=\"PUT_OK\"}");
        double latencyCountBefore = Scripts.sample(before, "basalt_put_latency_seconds_count");
        send("MetricsTopic", 40, 100, "m");
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(new Message("MetricsTopic", new byte[100]));
        }
        assertThat(producer.send(batch).getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        String after = metrics();
        assertThat(Scripts.sample(after, "basalt_messages_put_total{topic=\"MetricsTopic\"}")).isEqualTo(45.0);
        assertThat(Scripts.sample(after, "basalt_put_bytes_total{topic=\"MetricsTopic\"}")).isEqualTo(4500.0);
        assertThat(Scripts.sample(after, "basalt_put_requests_total{status=\"PUT_OK\"}") - putOkBefore).isEqualTo(41.0);
        assertThat(Scripts.sample(after, "basalt_put_latency_seconds_count") - latencyCountBefore).isEqualTo(41.0);
        assertThat(Scripts.sample(after, "basalt_commitlog_max_offset_bytes")).isPositive();
        assertThat(Scripts.sample(after, "basalt_connections")).isGreaterThanOrEqualTo(1.0);
        assertThat(Scripts.sample(after, "basalt_disk_used_ratio")).isBetween(0.0, 1.0);
        assertThat(Scripts.sample(after, "basalt_executor_queue_depth{executor=\"send\"}")).isZero();
        assertThat(Scripts.sample(after, "basalt_executor_system_busy_total{executor=\"send\"}")).isZero();
        assertThat(Scripts.sample(after, "basalt_page_cache_busy_rejections_total")).isZero();
        assertThat(after).contains("basalt_flush_latency_seconds_bucket", "basalt_pull_held_requests",
            "jvm_memory_used_bytes", "jvm_buffer_pool_used_buffers{pool=\"mapped\"}", "jvm_buffer_pool_used_bytes{pool=\"direct\"}",
            "jvm_threads_current", "jvm_gc_collection_seconds");
        await().atMost(Duration.ofSeconds(10)).until(() ->
            Scripts.sample(metrics(), "basalt_commitlog_flushed_offset_bytes") == Scripts.sample(metrics(), "basalt_commitlog_max_offset_bytes"));
        assertThat(Scripts.sample(metrics(), "basalt_flush_latency_seconds_count")).isPositive();
    }

    @Test
    @Order(2)
    void lagIsWhatTheGroupHasNotCommitted() throws Exception {
        Scripts.Result created = Scripts.run(out("create-lag"), 120, "mqadmin", "updateTopic", "-n", broker.address(), "-c",
            CLUSTER, "-t", "LagTopic", "-r", "1", "-w", "1");
        assertThat(created.output()).contains("success");
        send("LagTopic", 10, 16, "lag");
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("lag_group");
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName("ops-lag");
        consumer.setAutoCommit(false);
        consumer.start();
        try {
            MessageQueue mq = new MessageQueue("LagTopic", broker.brokerName(), 0);
            consumer.assign(List.of(mq));
            LitePullConsumers.awaitFirstPull(consumer);
            consumer.commitSync(Map.of(mq, 7L), true);
            String series = "basalt_consumer_lag_messages{group=\"lag_group\",queue=\"0\",topic=\"LagTopic\"}";
            await().atMost(Duration.ofSeconds(20)).until(() -> Scripts.sample(metrics(), series) == 3.0);
            consumer.commitSync(Map.of(mq, 10L), true);
            await().atMost(Duration.ofSeconds(20)).until(() -> Scripts.sample(metrics(), series) == 0.0);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    @Order(3)
    void mqadminSubcommandsWorkAgainstBasalt() throws Exception {
        String n = broker.address();
        Scripts.Result update = Scripts.run(out("updateTopic"), 120, "mqadmin", "updateTopic", "-n", n, "-c", CLUSTER,
            "-t", "AdminTopic", "-r", "2", "-w", "2");
        assertThat(update.exitCode()).isZero();
        assertThat(update.output()).contains("create topic to " + n + " success", "topicName=AdminTopic",
            "readQueueNums=2", "writeQueueNums=2");

        List<SendResult> sent = send("AdminTopic", 6, 32, "admin-key-");

        Scripts.Result list = Scripts.run(out("topicList"), 120, "mqadmin", "topicList", "-n", n);
        assertThat(list.output().lines()).contains("AdminTopic", "MetricsTopic");

        Scripts.Result status = Scripts.run(out("topicStatus"), 120, "mqadmin", "topicStatus", "-n", n, "-t", "AdminTopic");
        assertThat(status.output()).contains("#Broker Name", "#QID", "#Min Offset", "#Max Offset");
        long maxOffsets = 0;
        Matcher row = Pattern.compile("(?m)^" + broker.brokerName() + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)").matcher(status.output());
        while (row.find()) {
            maxOffsets += Long.parseLong(row.group(3));
        }
        assertThat(maxOffsets).isEqualTo(6);

        // A push consumer heartbeats (creating %RETRY%admin_group, which consumerProgress looks up), consumes
        // the six messages and persists its offsets on shutdown; four more messages are then its lag.
        CountDownLatch consumed = new CountDownLatch(6);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("admin_group");
        consumer.setNamesrvAddr(n);
        consumer.setInstanceName("ops-admin");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("AdminTopic", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> consumed.countDown());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            assertThat(consumed.await(60, TimeUnit.SECONDS)).isTrue();
            // The listener sees a batch before the client advances its offsets past it: wait for all six,
            // so the shutdown persists them.
            OffsetStore offsets = consumer.getDefaultMQPushConsumerImpl().getOffsetStore();
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.fetchSubscribeMessageQueues("AdminTopic").stream()
                .mapToLong(mq -> Math.max(0, offsets.readOffset(mq, ReadOffsetType.READ_FROM_MEMORY))).sum() == 6);
        } finally {
            consumer.shutdown();
        }
        send("AdminTopic", 4, 32, "later-");
        Scripts.Result progress = Scripts.run(out("consumerProgress"), 120, "mqadmin", "consumerProgress", "-n", n,
            "-g", "admin_group");
        assertThat(progress.output()).contains("#Topic", "#Diff", "AdminTopic", "Diff Total: 4");

        Scripts.Result byKey = Scripts.run(out("queryMsgByKey"), 120, "mqadmin", "queryMsgByKey", "-n", n, "-t",
            "AdminTopic", "-k", "admin-key-3");
        assertThat(byKey.output()).contains("#Message ID", sent.get(3).getMsgId());

        Scripts.Result byId = Scripts.run(out("queryMsgById"), 120, "mqadmin", "queryMsgById", "-n", n, "-i",
            sent.get(2).getOffsetMsgId());
        assertThat(byId.output()).contains("OffsetID:", sent.get(2).getOffsetMsgId(), "Topic:", "AdminTopic", "Keys:",
            "[admin-key-2]", "Queue Offset:", "CommitLog Offset:");

        Scripts.Result brokerStatus = Scripts.run(out("brokerStatus"), 120, "mqadmin", "brokerStatus", "-n", n, "-b", n);
        assertThat(brokerStatus.output()).contains("msgPutTotalTodayNow", "commitLogMaxOffset", "brokerVersionDesc");

        Scripts.Result clusterList = Scripts.run(out("clusterList"), 120, "mqadmin", "clusterList", "-n", n);
        assertThat(clusterList.output()).contains("#Cluster Name", CLUSTER, broker.brokerName(), n);
    }

    @Test
    @Order(4)
    void mqbenchProducerPrintsLiveLinesAndASummaryMatchingTheMetrics() throws Exception {
        Scripts.Result bench = Scripts.run(out("mqbench-producer"), 180, "mqbench", "producer", "-n", broker.address(),
            "-t", "4", "-s", "256", "-w", "1", "-d", "3", "--topic", "BenchTopic");
        assertThat(bench.exitCode()).as(bench.output()).isZero();
        assertThat(Pattern.compile("(?m)^\\[\\s+\\d+s\\] send TPS:\\s+[\\d.]+\\s+errors: 0\\s+p50: [\\d.]+ ms\\s+p99: [\\d.]+ ms$")
            .matcher(bench.output()).results().count()).isGreaterThanOrEqualTo(2);
        Matcher summary = Pattern.compile("Summary: (\\d+) send ok, 0 errors").matcher(bench.output());
        assertThat(summary.find()).as(bench.output()).isTrue();
        assertThat(bench.output()).containsPattern("Latency ms: p50 [\\d.]+  p90 [\\d.]+  p99 [\\d.]+  p99.9 [\\d.]+  max");
        long sent = Long.parseLong(summary.group(1));
        assertThat(sent).isPositive();
        // the warm-up's sends reach the broker but stay out of the summary
        Matcher warmup = Pattern.compile("(?m)^warm-up done: (\\d+) sent, 0 errors; measuring$").matcher(bench.output());
        assertThat(warmup.find()).as(bench.output()).isTrue();
        long warm = Long.parseLong(warmup.group(1));
        assertThat(warm).isPositive();
        assertThat(Scripts.sample(metrics(), "basalt_messages_put_total{topic=\"BenchTopic\"}"))
            .isEqualTo((double) (warm + sent));

        Scripts.Result consume = Scripts.run(out("mqbench-consumer"), 180, "mqbench", "consumer", "-n", broker.address(),
            "--topic", "BenchTopic", "-g", "bench_group", "-c", Long.toString(warm + sent));
        assertThat(consume.exitCode()).as(consume.output()).isZero();
        assertThat(consume.output()).contains("Summary: " + (warm + sent) + " recv ok");
    }

    @Test
    @Order(5)
    void statusPageShowsTopicsAndChartsInChromium() throws Exception {
        // A few seconds of traffic so the per-second series has points.
        for (int s = 0; s < 3; s++) {
            send("PageTopic", 20, 64, "p");
            long next = System.nanoTime() + 1_100_000_000L;
            await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() >= next);
        }
        String json = Scripts.get(broker.metricsPort(), "/status.json");
        assertThat(json).contains("\"name\":\"PageTopic\"", "\"group\":\"lag_group\"", "\"series\":[{");

        Path shot = Path.of("target", "status-page.png").toAbsolutePath();
        Files.createDirectories(shot.getParent());
        Files.deleteIfExists(shot);
        String url = "http://127.0.0.1:" + broker.metricsPort() + "/";
        Scripts.Result dom = Chromium.run(dir.resolve("chromium-dom"), "--dump-dom", url);
        assertThat(dom.output()).contains("PageTopic", "MetricsTopic", "lag_group", "<polyline points=");
        Matcher points = Pattern.compile("id=\"tps-chart\"[^>]*data-points=\"(\\d+)\"").matcher(dom.output());
        assertThat(points.find()).as(dom.output()).isTrue();
        assertThat(Integer.parseInt(points.group(1))).isGreaterThanOrEqualTo(2);
        Chromium.run(dir.resolve("chromium-shot"), "--screenshot=" + shot, "--window-size=1280,1400", url);
        assertThat(shot).exists();
        assertThat(Files.size(shot)).isGreaterThan(10_000);
    }
}
