package io.basalt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and a slave process: the master's /metrics and status page report the slave's acknowledged
 * offset catching up with the CommitLog, and its lag falling to zero.
 */
class HaMetricsTest {
    @TempDir
    Path dir;

    @Test
    void masterReportsTheSlaveAckOffsetAndLag() throws Exception {
        int haPort = BrokerProcess.freePort();
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("haListenPort",
                 Integer.toString(haPort)));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
                 "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + haPort))) {
            master.start();
            slave.start();
            DefaultMQProducer producer = new DefaultMQProducer("ha_metrics_producer");
            producer.setNamesrvAddr(master.address());
            producer.setInstanceName("ha-metrics");
            producer.start();
            try {
                for (int i = 0; i < 20; i++) {
                    assertThat(producer.send(new Message("HaTopic", new byte[256])).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                }
            } finally {
                producer.shutdown();
            }
            String labels = "{broker_id=\"1\",slave=\"" + slave.address() + "\"}";
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                String metrics = Scripts.get(master.metricsPort(), "/metrics");
                double max = Scripts.sample(metrics, "basalt_commitlog_max_offset_bytes");
                assertThat(max).isPositive();
                assertThat(Scripts.sample(metrics, "basalt_ha_slave_ack_offset_bytes" + labels)).isEqualTo(max);
                assertThat(Scripts.sample(metrics, "basalt_ha_slave_lag_bytes" + labels)).isZero();
                assertThat(Scripts.sample(metrics, "basalt_ha_slave_lag_seconds" + labels)).isZero();
            });
            assertThat(Scripts.get(master.metricsPort(), "/status.json"))
                .contains("\"role\":\"ASYNC_MASTER\"", "\"address\":\"" + slave.address() + "\",\"brokerId\":1");
            assertThat(Scripts.get(slave.metricsPort(), "/status.json")).contains("\"role\":\"SLAVE\"");
        }
    }
}
