package io.basalt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.basalt.it.BrokerProcess;
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

    private BrokerProcess master(int haPort) throws Exception {
        return BrokerProcess.create(dir.resolve("master"), Map.of("haListenPort", Integer.toString(haPort)));
    }

    private BrokerProcess slave(int masterHaPort) throws Exception {
        return BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
            "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + masterHaPort));
    }

    @Test
    void mqhaShowsTheReplicationStateAndPromotesTheSlaveWhichFencesTheMaster() throws Exception {
        int haPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(haPort); BrokerProcess slave = slave(haPort)) {
            master.start();
            slave.start();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                Scripts.run(dir.resolve("mqha-master.out"), 120, "mqha", "status", "-b", master.address()).output()
                    .contains("haConnectionCount        1"));
            assertThat(Scripts.run(dir.resolve("mqha-master-view.out"), 120, "mqha", "status", "-b", master.address())
                .output()).contains("epochs                   1@0", "inSyncSlaves             1", "inSync=yes");
            Scripts.Result status = Scripts.run(dir.resolve("mqha-slave.out"), 120, "mqha", "status", "-b", slave.address());
            assertThat(status.exitCode()).isZero();
            assertThat(status.output()).contains("haRole                   SLAVE", "haEpoch                  1",
                "epochs                   1@0", "masterHaAddress          127.0.0.1:" + haPort);

            Scripts.Result stale = Scripts.run(dir.resolve("mqha-stale.out"), 120, "mqha", "promote", "-b", slave.address(),
                "-e", "7");
            assertThat(stale.exitCode()).isEqualTo(1);
            assertThat(stale.output()).contains("promotion refused", "follows epoch 1, not 7");

            Scripts.Result promoted = Scripts.run(dir.resolve("mqha-promote.out"), 120, "mqha", "promote", "-b",
                slave.address(), "-e", "1");
            assertThat(promoted.exitCode()).isZero();
            assertThat(promoted.output()).contains("promoted to ASYNC_MASTER, epoch=2");
            assertThat(Scripts.run(dir.resolve("mqha-after.out"), 120, "mqha", "status", "-b", master.address()).output())
                .contains("haFenced                 true");
            assertThat(Scripts.run(dir.resolve("mqha-new.out"), 120, "mqha", "status", "-b", slave.address()).output())
                .contains("haRole                   ASYNC_MASTER", "haEpoch                  2", "haFenced                 false");
        }
    }

    @Test
    void masterReportsTheSlaveAckOffsetAndLag() throws Exception {
        int haPort = BrokerProcess.freePort();
        try (BrokerProcess master = master(haPort); BrokerProcess slave = slave(haPort)) {
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
                assertThat(Scripts.sample(metrics, "basalt_ha_slave_in_sync" + labels)).isEqualTo(1);
                assertThat(Scripts.sample(metrics, "basalt_ha_sync_state_set_size")).isEqualTo(2);
            });
            String masterMetrics = Scripts.get(master.metricsPort(), "/metrics");
            assertThat(Scripts.sample(masterMetrics, "basalt_ha_epoch")).isEqualTo(1);
            assertThat(Scripts.sample(masterMetrics, "basalt_ha_role{role=\"ASYNC_MASTER\"}")).isEqualTo(1);
            assertThat(Scripts.sample(masterMetrics, "basalt_ha_role{role=\"SLAVE\"}")).isZero();
            assertThat(Scripts.sample(masterMetrics, "basalt_ha_elections_total")).isZero();
            assertThat(Scripts.sample(masterMetrics, "basalt_ha_seconds_without_master")).isZero();
            String slaveMetrics = Scripts.get(slave.metricsPort(), "/metrics");
            assertThat(Scripts.sample(slaveMetrics, "basalt_ha_role{role=\"SLAVE\"}")).isEqualTo(1);
            assertThat(Scripts.sample(slaveMetrics, "basalt_ha_epoch")).isEqualTo(1);
            assertThat(Scripts.sample(slaveMetrics, "basalt_ha_sync_state_set_size")).isZero();
            assertThat(Scripts.get(master.metricsPort(), "/status.json"))
                .contains("\"role\":\"ASYNC_MASTER\"", "\"address\":\"" + slave.address() + "\",\"brokerId\":1",
                    "\"epoch\":1", "\"epochs\":[{\"epoch\":1,\"startOffset\":0}]", "\"syncStateSetSize\":2",
                    "\"inSync\":true");
            assertThat(Scripts.get(slave.metricsPort(), "/status.json")).contains("\"role\":\"SLAVE\"");
        }
    }
}
