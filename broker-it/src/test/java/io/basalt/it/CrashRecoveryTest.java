package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 of the broker process: after the restart (abnormal recovery) every acknowledged message is there once. */
class CrashRecoveryTest {
    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedMessageSurvivesAKill() throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir, Map.of());
        try {
            broker.start();
            Set<String> acked = new HashSet<>();
            DefaultMQProducer p = Clients.producer(broker, "pg-crash");
            try {
                for (int i = 0; i < 300; i++) {
                    Message m = new Message("CrashTopic", "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                    if (p.send(m).getSendStatus() == SendStatus.SEND_OK) {
                        acked.add("key-" + i);
                    }
                }
            } finally {
                p.shutdown();
            }
            broker.close();   // SIGKILL: no shutdown hook, the abort marker stays
            assertTrue(Files.exists(broker.storeDir().resolve("abort")), "the kill left the abort marker");
            broker.start();
            DefaultLitePullConsumer c = Clients.litePull(broker, "cg-crash", "CrashTopic", "*");
            List<MessageExt> read;
            try {
                read = Clients.pollAtLeast(c, acked.size(), 60_000);
                read.addAll(c.poll(1000));
            } finally {
                c.shutdown();
            }
            assertEquals(acked.size(), read.size(), "each message exactly once");
            Set<String> keys = new HashSet<>();
            for (MessageExt m : read) {
                keys.add(m.getKeys());
                assertEquals("body-" + m.getKeys().substring(4), new String(m.getBody(), StandardCharsets.UTF_8));
            }
            assertEquals(acked, keys);
        } finally {
            broker.close();
        }
    }
}
