package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SYNC_FLUSH: a send is answered SEND_OK once force() covered it, and what was acknowledged reads back. */
class SyncFlushTest {
    @TempDir
    Path dir;

    @Test
    void syncFlushSendsAreAcknowledgedAndReadable() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir, Map.of("flushDiskType", "SYNC_FLUSH"))) {
            broker.start();
            DefaultMQProducer p = Clients.producer(broker, "pg-sync-flush");
            try {
                for (int i = 0; i < 20; i++) {
                    assertEquals(SendStatus.SEND_OK, p.send(new Message("SyncFlushTopic", "TagA", "k" + i,
                        ("body-" + i).getBytes(StandardCharsets.UTF_8))).getSendStatus());
                }
            } finally {
                p.shutdown();
            }
            DefaultLitePullConsumer c = Clients.litePull(broker, "cg-sync-flush", "SyncFlushTopic", "*");
            try {
                assertEquals(20, Clients.pollAtLeast(c, 20, 60_000).size());
            } finally {
                c.shutdown();
            }
        }
    }
}
