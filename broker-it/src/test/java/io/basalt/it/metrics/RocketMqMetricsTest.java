package io.basalt.it.metrics;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerProcess;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocketMQ 5's metric names on Basalt's Prometheus endpoint, after known traffic of the official 5.2.0 producer and
 * push consumer: messages and bytes in and out by topic, message type and group, the size histogram, consumer lag,
 * connections, and the broker and store gauges, each with RocketMQ's labels ({@code cluster}, {@code node_type},
 * {@code node_id}) and the {@code metricsLabel} pairs.
 */
class RocketMqMetricsTest {
    static final String TOPIC = "PromTopic";
    static final String DELAY_TOPIC = "PromDelayTopic";
    static final String GROUP = "cg-prom";
    static final int N = 20;
    static final int LATER = 5;
    static final Map<String, String> BROKER_LABELS = Map.of("cluster", "DefaultCluster", "node_type", "broker",
        "node_id", "broker-a", "env", "it", "zone", "z1");

    @TempDir
    Path dir;

    static Map<String, String> labels(String... pairs) {
        Map<String, String> m = new HashMap<>(BROKER_LABELS);
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    static double value(PrometheusText scrape, String name, Map<String, String> labels) {
        return scrape.value(name, labels).orElseThrow(() -> new AssertionError("no " + name + labels + " in "
            + scrape.samples(name, Map.of())));
    }

    private static void awaitRelease(CountDownLatch release) {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void rocketMqNamesCountTheTrafficWithRocketMqLabels() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir, Map.of("metricsLabel", "env:it,zone:z1"))) {
            broker.start();
            String created = MqAdmin.run("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", TOPIC,
                "-r", "2", "-w", "2");
            assertTrue(created.contains("success"), created);

            DefaultMQProducer producer = new DefaultMQProducer("pg-prom");
            producer.setNamesrvAddr(broker.address());
            producer.setInstanceName("prom-producer-" + ProcessHandle.current().pid());
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(GROUP);
            CountDownLatch release = new CountDownLatch(1);
            try {
                producer.start();
                byte[] body = new byte[100];
                for (int i = 0; i < N; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "TagA", "k" + i, body)).getSendStatus());
                }
                Message delayed = new Message(DELAY_TOPIC, "d".getBytes(StandardCharsets.UTF_8));
                delayed.setDelayTimeLevel(1);
                assertEquals(SendStatus.SEND_OK, producer.send(delayed).getSendStatus());

                Set<String> received = ConcurrentHashMap.newKeySet();
                AtomicLong storedBytes = new AtomicLong();
                consumer.setNamesrvAddr(broker.address());
                consumer.setInstanceName("prom-consumer-" + ProcessHandle.current().pid());
                consumer.setPollNameServerInterval(1000);
                consumer.setHeartbeatBrokerInterval(1000);
                consumer.setPersistConsumerOffsetInterval(1000);
                consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                consumer.subscribe(TOPIC, "*");
                consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                    for (MessageExt m : msgs) {
                        if ("later".equals(m.getTags())) {
                            // held until the end: the group's committed offsets cannot pass these messages
                            awaitRelease(release);
                        } else if (received.add(m.getMsgId())) {
                            storedBytes.addAndGet(m.getStoreSize());
                        }
                    }
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                consumer.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> received.size() == N);
                // the consumer commits every second: the lag of the online group falls to 0
                await().atMost(Duration.ofSeconds(30)).until(() -> PrometheusText.scrape(broker.metricsPort())
                    .value("rocketmq_consumer_lag_messages", labels("consumer_group", GROUP, "topic", TOPIC))
                    .orElse(-1) == 0);

                PrometheusText scrape = PrometheusText.scrape(broker.metricsPort());
                Map<String, String> in = labels("topic", TOPIC, "message_type", "normal", "is_system", "false");
                assertEquals(N, value(scrape, "rocketmq_messages_in_total", in));
                assertEquals(storedBytes.get(), value(scrape, "rocketmq_throughput_in_total", in),
                    "the records' CommitLog bytes, as the consumer saw their store size");
                assertEquals(1, value(scrape, "rocketmq_messages_in_total",
                    labels("topic", DELAY_TOPIC, "message_type", "delay", "is_system", "false")));

                Map<String, String> size = new HashMap<>(in);
                size.put("le", "1024.0");
                assertEquals(N, value(scrape, "rocketmq_message_size_bucket", size), "every record is under 1 KiB");
                size.put("le", "+Inf");
                assertEquals(N, value(scrape, "rocketmq_message_size_bucket", size));
                assertEquals(N, value(scrape, "rocketmq_message_size_count", in));
                assertEquals(storedBytes.get(), value(scrape, "rocketmq_message_size_sum", in), 1.0 * N);

                Map<String, String> out = labels("topic", TOPIC, "consumer_group", GROUP, "is_system", "false");
                assertEquals(N, value(scrape, "rocketmq_messages_out_total", out));
                assertEquals(storedBytes.get(), value(scrape, "rocketmq_throughput_out_total", out));
                assertTrue(scrape.samples("rocketmq_messages_out_total", Map.of()).stream()
                    .noneMatch(s -> s.labels().get("topic").startsWith("%RETRY%")), "retry topics are not counted");

                assertEquals(1, value(scrape, "rocketmq_consumer_connections", labels("consumer_group", GROUP,
                    "language", "java", "version", "v5_2_0", "consume_mode", "push", "protocol_type", "remoting",
                    "is_system", "false")));
                assertTrue(value(scrape, "rocketmq_producer_connections", labels("language", "java", "version", "v5_2_0",
                    "protocol_type", "remoting")) >= 1);
                assertEquals(6, value(scrape, "rocketmq_broker_permission", labels()));
                assertTrue(scrape.value("rocketmq_processor_watermark", labels("processor", "send")).isPresent());
                assertTrue(scrape.value("rocketmq_processor_watermark", labels("processor", "pull")).isPresent());
                Map<String, String> store = labels("storage_type", "local", "storage_medium", "disk");
                assertTrue(value(scrape, "rocketmq_storage_size_bytes", store) > 0);
                assertTrue(value(scrape, "rocketmq_storage_flush_behind_bytes", store) >= 0);
                assertTrue(value(scrape, "rocketmq_storage_dispatch_behind_bytes", store) >= 0);
                assertTrue(value(scrape, "rocketmq_storage_message_reserve_time_milliseconds", store) >= 0);
                for (PrometheusText.Sample s : scrape.all()) {
                    if (s.name().startsWith("rocketmq_")) {
                        assertTrue(s.has(BROKER_LABELS), "RocketMQ's labels and metricsLabel on " + s);
                    }
                }

                // messages the consumer gets but does not finish: the online group's lag
                long before = System.currentTimeMillis();
                for (int i = 0; i < LATER; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "later", body)).getSendStatus());
                }
                Map<String, String> lag = labels("consumer_group", GROUP, "topic", TOPIC, "is_retry", "false",
                    "is_system", "false");
                await().atMost(Duration.ofSeconds(30)).until(() -> PrometheusText.scrape(broker.metricsPort())
                    .value("rocketmq_messages_out_total", out).orElse(0) == N + LATER);
                PrometheusText lagging = PrometheusText.scrape(broker.metricsPort());
                assertEquals(LATER, value(lagging, "rocketmq_consumer_lag_messages", lag));
                double latency = value(lagging, "rocketmq_consumer_lag_latency_milliseconds", lag);
                assertTrue(latency >= 0 && latency <= System.currentTimeMillis() - before + 1000, "latency " + latency);
                assertEquals(N + LATER, value(lagging, "rocketmq_messages_in_total", in));
                assertFalse(lagging.samples("basalt_messages_put_total", Map.of()).isEmpty(), "basalt_* stay");
            } finally {
                release.countDown();
                consumer.shutdown();
                producer.shutdown();
            }
        }
    }
}
