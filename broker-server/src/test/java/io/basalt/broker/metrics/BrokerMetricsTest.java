package io.basalt.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.common.service.ServiceThread;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.transaction.TransactionCounters;
import io.basalt.ha.SlaveStatus;
import io.basalt.store.MessageStore;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.testing.TestStores;
import io.basalt.store.StoreConfig;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerMetricsTest {
    @TempDir
    Path root;
    private MessageStore store;
    private TopicConfigManager topics;
    private ConsumerOffsetManager offsets;
    private BrokerMetrics metrics;
    private final AtomicBoolean queueLookupFails = new AtomicBoolean();
    /** A real long-polling service whose queue lookup can be made to throw (an unexpected error). */
    private final PullRequestHoldService pullHold = new PullRequestHoldService((topic, queueId) -> {
        if (queueLookupFails.get()) {
            throw new IllegalStateException("injected fault in the queue lookup");
        }
        return 0;
    }, System::currentTimeMillis, 5);

    @BeforeEach
    void open() throws IOException {
        store = TestStores.start(TestStores.config(root).mappedFileSizeConsumeQueue(6000).build());
        topics = TopicConfigManager.open(root.resolve("config"), true, 4);
        topics.createIfAbsent("Orders", 2, 6);
        offsets = ConsumerOffsetManager.open(root.resolve("config"));
        metrics = new BrokerMetrics(new MetricsSources(store, topics, offsets, root, () -> 3, () -> 2,
            List.of(new MetricsSources.ExecutorSource("send", () -> 5, () -> 7)), () -> "ASYNC_MASTER",
            () -> List.of(new SlaveStatus("10.0.0.2:40000", 1, "10.0.0.2:10911", 1000, 24, 1500)),
            () -> Map.of(pullHold.name(), pullHold.errorCount())));
        store.setFlushObserver(metrics.flushObserver());
    }

    @AfterEach
    void close() {
        pullHold.shutdown();
        store.shutdown();
    }

    private void put(String topic, int queueId, int bodySize) {
        BrokerMessage m = BrokerMessage.builder().topic(topic).queueId(queueId).body(new byte[bodySize])
            .properties(Map.of()).bornTimestamp(System.currentTimeMillis())
            .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
        PutMessageStatus status = store.asyncPutMessage(m).join().status();
        metrics.putDone(topic, status, 1, bodySize, 1_500_000);
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private String scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PrometheusTextFormatWriter(false).write(out, metrics.registry().scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double sample(String text, String series) {
        return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.split(" ")[1]))
            .findFirst().orElse(Double.NaN);
    }

    /** The value of the one line of {@code name} carrying every one of {@code labels} (name="value" each). */
    private static double rocketMq(String text, String name, String... labels) {
        List<String> lines = text.lines().filter(l -> l.startsWith(name + "{"))
            .filter(l -> java.util.Arrays.stream(labels).allMatch(l::contains)).toList();
        assertEquals(1, lines.size(), name + " " + List.of(labels) + ": " + lines);
        String line = lines.get(0);
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    @Test
    void rocketMqNamesLeaveOutRetryAndDlqTopicsAndCountDeadLettersByOriginalTopic() throws Exception {
        metrics.registerRocketMq(new RocketMqMetrics.Sources(
                new io.basalt.broker.client.ClientManager(120_000, System::currentTimeMillis), metrics.retryCounts(),
                new TransactionCounters(), () -> Map.of("Orders", 2L), () -> 6),
            "C1", "broker-x", Map.of("env", "t"));
        String empty = scrape();
        assertTrue(empty.contains("rocketmq_broker_permission{"), "a scrape before any traffic works: " + empty);
        assertTrue(empty.lines().noneMatch(l -> l.startsWith("rocketmq_message_size_bucket")), empty);
        metrics.messagesIn("Orders", RocketMqMessageType.FIFO, 2, 300);
        metrics.messagesIn("Orders", RocketMqMessageType.FIFO, 1, 5000);
        metrics.messagesIn("%RETRY%g", RocketMqMessageType.NORMAL, 1, 100);
        metrics.messagesIn("%DLQ%g", RocketMqMessageType.NORMAL, 1, 100);
        metrics.messagesOut("Orders", "g", 3, 450);
        metrics.messagesOut("%RETRY%g", "g", 1, 100);
        metrics.retryCounts().deadLettered("g", "%DLQ%g", "Orders", "uk", 17, 0L);

        String text = scrape();
        String[] fifo = {"topic=\"Orders\"", "message_type=\"fifo\"", "is_system=\"false\"", "cluster=\"C1\"",
            "node_type=\"broker\"", "node_id=\"broker-x\"", "env=\"t\""};
        assertEquals(3, rocketMq(text, "rocketmq_messages_in_total", fifo));
        assertEquals(5300, rocketMq(text, "rocketmq_throughput_in_total", fifo));
        List<String> bucket = new java.util.ArrayList<>(List.of(fifo));
        bucket.add("le=\"1024.0\"");
        assertEquals(1, rocketMq(text, "rocketmq_message_size_bucket", bucket.toArray(String[]::new)), "150 bytes each");
        bucket.set(bucket.size() - 1, "le=\"4096.0\"");
        assertEquals(1, rocketMq(text, "rocketmq_message_size_bucket", bucket.toArray(String[]::new)), "cumulative");
        bucket.set(bucket.size() - 1, "le=\"524288.0\"");
        assertEquals(2, rocketMq(text, "rocketmq_message_size_bucket", bucket.toArray(String[]::new)));
        assertEquals(2, rocketMq(text, "rocketmq_message_size_count", fifo), "one observation per send");
        assertEquals(5150, rocketMq(text, "rocketmq_message_size_sum", fifo));
        assertEquals(3, rocketMq(text, "rocketmq_messages_out_total", "topic=\"Orders\"", "consumer_group=\"g\""));
        assertEquals(450, rocketMq(text, "rocketmq_throughput_out_total", "topic=\"Orders\"", "consumer_group=\"g\""));
        assertTrue(text.lines().filter(l -> l.startsWith("rocketmq_messages_") || l.startsWith("rocketmq_throughput_"))
            .noneMatch(l -> l.contains("%RETRY%") || l.contains("%DLQ%")), text);
        assertEquals(1, rocketMq(text, "rocketmq_send_to_dlq_messages_total", "consumer_group=\"g\"",
            "topic=\"Orders\"", "is_system=\"false\""));
        assertEquals(2, rocketMq(text, "rocketmq_half_messages", "topic=\"Orders\""));
        assertEquals(6, rocketMq(text, "rocketmq_broker_permission", "node_id=\"broker-x\""));
        assertEquals(5, rocketMq(text, "rocketmq_processor_watermark", "processor=\"send\""));
    }

    @Test
    void countsPutsPerTopicAndStatusAndReadsTheBrokerState() throws Exception {
        put("Orders", 0, 100);
        put("Orders", 0, 100);
        put("Orders", 1, 50);
        metrics.putDone("Orders", PutMessageStatus.OS_PAGE_CACHE_BUSY, 1, 10, 1000);
        metrics.pullServed();
        metrics.messagesPulled(2);
        offsets.commitOffset(null, "billing", "Orders", 0, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("Orders", 0) == 2);

        String text = scrape();
        assertEquals(3, sample(text, "basalt_messages_put_total{topic=\"Orders\"}"));
        assertEquals(250, sample(text, "basalt_put_bytes_total{topic=\"Orders\"}"));
        assertEquals(3, sample(text, "basalt_put_requests_total{status=\"PUT_OK\"}"));
        assertEquals(1, sample(text, "basalt_put_requests_total{status=\"OS_PAGE_CACHE_BUSY\"}"));
        assertEquals(1, sample(text, "basalt_page_cache_busy_rejections_total"));
        assertEquals(4, sample(text, "basalt_put_latency_seconds_count"));
        assertEquals(4, sample(text, "basalt_put_latency_seconds_bucket{le=\"0.0025\"}"));
        assertEquals(1, sample(text, "basalt_put_latency_seconds_bucket{le=\"0.001\"}"));
        assertEquals(1, sample(text, "basalt_pull_requests_total"));
        assertEquals(2, sample(text, "basalt_messages_pulled_total"));
        assertEquals(1, sample(text, "basalt_consumer_lag_messages{group=\"billing\",queue=\"0\",topic=\"Orders\"}"));
        assertEquals(store.getMaxPhyOffset(), sample(text, "basalt_commitlog_max_offset_bytes"));
        assertEquals(3, sample(text, "basalt_connections"));
        assertEquals(2, sample(text, "basalt_pull_held_requests"));
        assertEquals(5, sample(text, "basalt_executor_queue_depth{executor=\"send\"}"));
        assertEquals(7, sample(text, "basalt_executor_system_busy_total{executor=\"send\"}"));
        assertEquals(1000, sample(text, "basalt_ha_slave_ack_offset_bytes{broker_id=\"1\",slave=\"10.0.0.2:10911\"}"));
        assertEquals(24, sample(text, "basalt_ha_slave_lag_bytes{broker_id=\"1\",slave=\"10.0.0.2:10911\"}"));
        assertEquals(1.5, sample(text, "basalt_ha_slave_lag_seconds{broker_id=\"1\",slave=\"10.0.0.2:10911\"}"));
        double disk = sample(text, "basalt_disk_used_ratio");
        assertTrue(disk > 0 && disk < 1, "disk ratio " + disk);
        assertEquals(0, sample(text, "basalt_commitlog_files_deleted_early_total"), "no forced clean happened");
        assertEquals(0, sample(text, "basalt_dispatch_write_blocked"), "the dispatcher can write");
        assertTrue(text.contains("jvm_buffer_pool_used_buffers{pool=\"mapped\"}"), "mapped buffer count exposed");
        assertTrue(text.contains("jvm_buffer_pool_used_bytes{pool=\"direct\"}"), "direct memory exposed");
    }

    @Test
    void theTimerWheelIsReportedInTheMetricsAndTheStatusReport() throws Exception {
        // as the broker sets up a master: timer step in the put pipeline, delivery on
        store.addPutTransform(store.timerMessages().putTransform());
        store.timerMessages().setDequeueEnabled(true);
        for (int i = 0; i < 3; i++) {
            BrokerMessage m = BrokerMessage.builder().topic("Later").queueId(0).body(new byte[] {1})
                .properties(Map.of("TIMER_DELAY_SEC", "60")).bornTimestamp(System.currentTimeMillis())
                .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911))
                .build();
            assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(m).join().status());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> sample(scrape(), "basalt_timer_pending_messages") == 3);

        String text = scrape();
        assertEquals(3, sample(text, "basalt_timer_enqueued_total"));
        assertEquals(0, sample(text, "basalt_timer_delivered_total"), "a minute away");
        assertEquals(0, sample(text, "basalt_timer_cancelled_total"));
        assertEquals(0, sample(text, "basalt_timer_dropped_entries_total"));
        assertEquals(0, sample(text, "basalt_timer_enqueue_lag_messages"));
        assertTrue(text.contains("basalt_timer_dequeue_lag_seconds "), text);
        String json = new StatusReport(metrics, new TrafficSampler(metrics, System::currentTimeMillis), "broker-a").json();
        assertTrue(json.contains("\"timer\":{\"enabled\":true,"), json);
        assertTrue(json.contains("\"pending\":3,"), json);
        assertTrue(json.contains("\"enqueued\":3,"), json);
    }

    @Test
    void deliveryLatenessIsAHistogramPerKind() throws Exception {
        metrics.recordDeliveryLateness("timer", 40);
        metrics.recordDeliveryLateness("timer", 1_500);
        metrics.recordDeliveryLateness("timer", -5);
        metrics.recordDeliveryLateness("delay", 300);

        String text = scrape();
        assertEquals(3, sample(text, "basalt_delivery_lateness_seconds_count{kind=\"timer\"}"));
        assertEquals(2, sample(text, "basalt_delivery_lateness_seconds_bucket{kind=\"timer\",le=\"0.05\"}"),
            "40 ms, and a negative lateness counted as on time");
        assertEquals(3, sample(text, "basalt_delivery_lateness_seconds_bucket{kind=\"timer\",le=\"2.0\"}"));
        assertEquals(1.54, sample(text, "basalt_delivery_lateness_seconds_sum{kind=\"timer\"}"), 1e-9);
        assertEquals(1, sample(text, "basalt_delivery_lateness_seconds_count{kind=\"delay\"}"));
    }

    @Test
    void serviceErrorsAreCountedPerServiceAndTheFailStopIsAFlag() throws Exception {
        String before = scrape();
        assertEquals(0, sample(before, "basalt_service_errors_total{service=\"PullRequestHoldService\"}"));
        assertEquals(0, sample(before, "basalt_service_errors_total{service=\"FlushRealTimeService\"}"));
        assertEquals(0, sample(before, "basalt_service_errors_total{service=\"ReputMessageService\"}"));
        assertEquals(0, sample(before, "basalt_store_fail_stopped"));

        // a resilient service: its errors are counted and the store stays writable
        pullHold.start();
        pullHold.suspend(new PullRequestHoldService.HeldPull("Orders", 0, 0, Long.MAX_VALUE, code -> true, () -> { }));
        queueLookupFails.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> pullHold.errorCount() >= 2);
        String resilient = scrape();
        assertTrue(sample(resilient, "basalt_service_errors_total{service=\"PullRequestHoldService\"}") >= 2);
        assertEquals(0, sample(resilient, "basalt_store_fail_stopped"));
        queueLookupFails.set(false);

        // a durability-critical service outside the store (HA's replica wait) trips the store's fail-stop
        ServiceThread replicaWait = new ServiceThread("GroupTransferService", store.durabilityErrorPolicy()) {
            @Override
            protected int doWork() {
                return 0;
            }

            @Override
            protected long idleWaitMs() {
                return 1000;
            }
        };
        store.durabilityErrorPolicy().onError(replicaWait, new IllegalStateException("injected fault"));
        assertEquals(1, sample(scrape(), "basalt_store_fail_stopped"));
    }

    @Test
    void flushObserverFeedsLatencyAndGroupSize() throws Exception {
        metrics.flushObserver().flushed(2_000_000, 5);
        metrics.flushObserver().flushed(1_000_000, 0);
        String text = scrape();
        assertEquals(2, sample(text, "basalt_flush_latency_seconds_count"));
        assertEquals(1, sample(text, "basalt_flush_group_size_count"));
        assertEquals(1, sample(text, "basalt_flush_group_size_bucket{le=\"8.0\"}"));
        assertEquals(0, sample(text, "basalt_flush_group_size_bucket{le=\"4.0\"}"));
    }

    @Test
    void statsLineAndSamplerReportTheLastInterval() {
        AtomicLong clock = new AtomicLong(1_000_000);
        StatsLogger stats = new StatsLogger(metrics, "broker-a", clock::get);
        TrafficSampler sampler = new TrafficSampler(metrics, clock::get);
        for (int i = 0; i < 6; i++) {
            put("Orders", 0, 10);
        }
        metrics.messagesPulled(3);
        offsets.commitOffset(null, "billing", "Orders", 0, 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("Orders", 0) == 6);
        clock.addAndGet(2_000);
        sampler.doWork();
        TrafficSampler.Sample s = sampler.history().get(0);
        assertEquals(3.0, s.putTps());
        assertEquals(1.5, s.getTps());
        assertTrue(s.putP99Ms() > 1.0 && s.putP99Ms() <= 2.5, "p99 in the 1..2.5 ms bucket: " + s.putP99Ms());
        assertEquals(3.0, sampler.topicPutTps("Orders"));

        clock.addAndGet(58_000);
        String line = stats.line();
        assertTrue(line.startsWith("[BROKER_STATS] [broker-a] Stats In One Minute, PUT SUM: 6 TPS: 0.10 P99: "), line);
        assertTrue(line.contains("GET SUM: 3 TPS: 0.05, CONSUMER LAG: 4, DISK USED: "), line);
        assertTrue(line.endsWith("COMMITLOG MAX OFFSET: " + store.getMaxPhyOffset()), line);
        clock.addAndGet(60_000);
        assertTrue(stats.line().contains("PUT SUM: 0 TPS: 0.00 P99: 0.000 ms"), "the next minute starts from zero");

        String json = new StatusReport(metrics, sampler, "broker-a").json();
        assertTrue(json.contains("\"name\":\"Orders\""), json);
        assertTrue(json.contains("\"group\":\"billing\",\"topic\":\"Orders\",\"lag\":4"), json);
        assertTrue(json.contains("\"role\":\"ASYNC_MASTER\""), json);
        assertTrue(json.contains("\"series\":[{\"t\":1002000,\"putTps\":3.0"), json);
    }

    @Test
    void clientConnectionsAreLabelledByProtocolAndListedOnTheStatusPage() throws Exception {
        io.basalt.broker.client.ClientManager clients = new io.basalt.broker.client.ClientManager(120_000,
            System::currentTimeMillis);
        metrics.registerRocketMq(new RocketMqMetrics.Sources(clients, metrics.retryCounts(), new TransactionCounters(),
            Map::of, () -> 6), "C1", "broker-x", Map.of());
        ProtocolConnection remoting = new ProtocolConnection("remoting");
        ProtocolConnection grpc = new ProtocolConnection("grpc");
        clients.registerProducer("pg", "p-remoting", remoting, "JAVA", 1);
        clients.registerProducer("Orders", "p-grpc", grpc, "JAVA", 1);
        clients.registerConsumer("cg", new io.basalt.broker.client.ConsumerGroupInfo.Member("c-remoting", "r", "CONSUME_PASSIVELY",
            "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(), remoting, "JAVA", 1), List.of());
        clients.registerConsumer("cg", new io.basalt.broker.client.ConsumerGroupInfo.Member("c-grpc-1", "g",
            "CONSUME_PASSIVELY", "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(), grpc, "JAVA", 1),
            List.of());
        clients.registerConsumer("cg", new io.basalt.broker.client.ConsumerGroupInfo.Member("c-grpc-2", "g",
            "CONSUME_ACTIVELY", "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(),
            new ProtocolConnection("grpc"), "JAVA", 1), List.of());

        String text = scrape();
        assertEquals(1, rocketMq(text, "rocketmq_producer_connections", "protocol_type=\"remoting\""));
        assertEquals(1, rocketMq(text, "rocketmq_producer_connections", "protocol_type=\"grpc\""));
        assertEquals(1, rocketMq(text, "rocketmq_consumer_connections", "consumer_group=\"cg\"",
            "consume_mode=\"push\"", "protocol_type=\"remoting\""));
        assertEquals(1, rocketMq(text, "rocketmq_consumer_connections", "consumer_group=\"cg\"",
            "consume_mode=\"push\"", "protocol_type=\"grpc\""));
        assertEquals(1, rocketMq(text, "rocketmq_consumer_connections", "consumer_group=\"cg\"",
            "consume_mode=\"pull\"", "protocol_type=\"grpc\""));
        String json = new StatusReport(metrics, new TrafficSampler(metrics, System::currentTimeMillis), "broker-a").json();
        assertTrue(json.contains("\"clients\":[{\"kind\":\"consumer\",\"group\":\"cg\",\"protocol\":\"grpc\",\"clients\":2},"
            + "{\"kind\":\"consumer\",\"group\":\"cg\",\"protocol\":\"remoting\",\"clients\":1},"
            + "{\"kind\":\"producer\",\"group\":\"Orders\",\"protocol\":\"grpc\",\"clients\":1},"
            + "{\"kind\":\"producer\",\"group\":\"pg\",\"protocol\":\"remoting\",\"clients\":1}]"), json);
    }

    /** An open connection of the given protocol. */
    private record ProtocolConnection(String protocol) implements io.basalt.remoting.processor.RemotingConnection {
        @Override
        public java.net.SocketAddress remoteAddress() {
            return new java.net.InetSocketAddress("127.0.0.1", 1);
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public java.util.concurrent.CompletableFuture<io.basalt.remoting.protocol.RemotingCommand> invoke(
            io.basalt.remoting.protocol.RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> invokeOneway(io.basalt.remoting.protocol.RemotingCommand r) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void retriesDeadLettersAndDropsAreCountedPerGroupAndShownOnTheStatusPage() throws Exception {
        metrics.retryCounts().retried("billing");
        metrics.retryCounts().retried("billing");
        metrics.retryCounts().deadLettered("billing", "%DLQ%billing", "Orders", "U-1", 4, 1L);
        metrics.retryCounts().dropped("audit", 0);

        String text = scrape();
        assertEquals(2, sample(text, "basalt_consumer_retries_total{group=\"billing\"}"));
        assertEquals(1, sample(text, "basalt_consumer_dlq_total{group=\"billing\"}"));
        assertEquals(1, sample(text, "basalt_consumer_retry_dropped_total{group=\"audit\"}"));
        assertEquals(0, sample(text, "basalt_consumer_dlq_total{group=\"audit\"}"));
        String json = new StatusReport(metrics, new TrafficSampler(metrics, System::currentTimeMillis), "broker-a").json();
        assertTrue(json.contains("\"retries\":[{\"group\":\"audit\",\"retries\":0,\"deadLettered\":0,\"dropped\":1},"
            + "{\"group\":\"billing\",\"retries\":2,\"deadLettered\":1,\"dropped\":0}]"), json);
    }

    @Test
    void transactionsAreCountedPerTopicAndShownOnTheStatusPage() throws Exception {
        TransactionCounters counters = new TransactionCounters();
        metrics.registerTransactions(counters);
        counters.prepared("Orders");
        counters.prepared("Orders");
        counters.prepared("Orders");
        counters.prepared("Payments");
        counters.committed("Orders");
        counters.rolledBack("Orders");
        counters.checked("Orders");
        counters.checked("Orders");
        counters.givenUp("Payments");
        counters.endRefused("producer_group");
        counters.endRefused("producer_group");
        counters.endRefused("offset");
        counters.duplicateDecision();
        counters.oldestUndecided(Map.of("Orders", 7_500L));

        String text = scrape();
        assertEquals(3, sample(text, "basalt_transaction_half_prepared_total{topic=\"Orders\"}"));
        assertEquals(1, sample(text, "basalt_transaction_half_prepared_total{topic=\"Payments\"}"));
        assertEquals(1, sample(text, "basalt_transaction_committed_total{topic=\"Orders\"}"));
        assertEquals(1, sample(text, "basalt_transaction_rolled_back_total{topic=\"Orders\"}"));
        assertEquals(2, sample(text, "basalt_transaction_checked_total{topic=\"Orders\"}"));
        assertEquals(0, sample(text, "basalt_transaction_given_up_total{topic=\"Orders\"}"));
        assertEquals(1, sample(text, "basalt_transaction_given_up_total{topic=\"Payments\"}"));
        assertEquals(7.5, sample(text, "basalt_transaction_oldest_undecided_age_seconds{topic=\"Orders\"}"));
        assertEquals(0, sample(text, "basalt_transaction_oldest_undecided_age_seconds{topic=\"Payments\"}"));
        assertEquals(2, sample(text, "basalt_transaction_end_refused_total{reason=\"producer_group\"}"));
        assertEquals(1, sample(text, "basalt_transaction_end_refused_total{reason=\"offset\"}"));
        assertEquals(1, sample(text, "basalt_transaction_duplicate_decisions_total"));

        String json = new StatusReport(metrics, new TrafficSampler(metrics, System::currentTimeMillis), "broker-a").json();
        assertTrue(json.contains("\"transactions\":{\"topics\":[{\"topic\":\"Orders\",\"prepared\":3,\"committed\":1,"
            + "\"rolledBack\":1,\"checked\":2,\"givenUp\":0,\"oldestUndecidedAgeMs\":7500},{\"topic\":\"Payments\","
            + "\"prepared\":1,\"committed\":0,\"rolledBack\":0,\"checked\":0,\"givenUp\":1,\"oldestUndecidedAgeMs\":0}],"
            + "\"endRefused\":{\"offset\":1,\"producer_group\":2},\"duplicateDecisions\":1}"), json);
    }

    @Test
    void withoutTransactionsTheSeriesAreEmptyAndTheStatusSectionIsToo() throws Exception {
        String text = scrape();
        assertTrue(text.lines().noneMatch(l -> l.startsWith("basalt_transaction_")), "registered only by the broker");
        String json = new StatusReport(metrics, new TrafficSampler(metrics, System::currentTimeMillis), "broker-a").json();
        assertTrue(json.contains("\"transactions\":{\"topics\":[],\"endRefused\":{},\"duplicateDecisions\":0}"), json);
    }

    @Test
    void aMetricsTokenKeepsTheEndpointClosedToRequestsWithoutIt() throws Exception {
        MetricsService service = new MetricsService(metrics, "broker-a", "127.0.0.1", freePort(),
            java.util.Optional.of("a-token-of-sixteen+"));
        service.start();
        try {
            int port = service.port();
            assertEquals(401, status(port, "/metrics", null), "no token");
            assertEquals(401, status(port, "/metrics", "Bearer wrong"), "a wrong token");
            assertEquals(200, status(port, "/metrics", "Bearer a-token-of-sixteen+"));
            assertEquals(401, status(port, "/", null), "the status page too");
        } finally {
            service.shutdown();
        }
    }

    /**
     * The status code of one GET, over a socket this method closes itself: the JDK's HttpURLConnection
     * may hand an error response's socket to its keep-alive cleaner, which outlives the test.
     */
    private static int status(int port, String path, String authorization) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String statusLine = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                StandardCharsets.US_ASCII)).readLine();
            assertTrue(statusLine != null && statusLine.startsWith("HTTP/1.1 "), "status line: " + statusLine);
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }
}
