package io.basalt.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * TLS on the broker's remoting ports in each {@code tls.server.mode}, with the official 5.2.0 client's
 * {@code setUseTLS}: permissive serves TLS and plaintext clients side by side; enforcing refuses a plaintext client
 * before any of its requests is executed (RocketMQ 5.2.0 stores its message); disabled refuses TLS.
 */
class TlsTest {
    @TempDir
    Path dir;

    private DefaultMQProducer producer(BrokerProcess broker, boolean tls) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("tls-pg-" + System.nanoTime());
        p.setNamesrvAddr(broker.address());
        p.setInstanceName(Clients.instanceName());
        p.setUseTLS(tls);
        p.setRetryTimesWhenSendFailed(0);
        p.setSendMsgTimeout(5000);
        p.start();
        return p;
    }

    private static Message message(String topic) {
        return new Message(topic, "hello".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void permissiveServesTlsAndPlaintextClients() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("b"), Map.of("tls.server.mode", "permissive"))) {
            broker.start();
            DefaultMQProducer tls = producer(broker, true);
            DefaultMQProducer plain = producer(broker, false);
            try {
                assertEquals(SendStatus.SEND_OK, tls.send(message("TlsTopic")).getSendStatus());
                assertEquals(SendStatus.SEND_OK, plain.send(message("TlsTopic")).getSendStatus());
            } finally {
                tls.shutdown();
                plain.shutdown();
            }
            DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("tls-cg");
            consumer.setNamesrvAddr(broker.address());
            consumer.setInstanceName(Clients.instanceName());
            consumer.setUseTLS(true);
            consumer.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.subscribe("TlsTopic", "*");
            consumer.start();
            try {
                List<MessageExt> got = Clients.pollAtLeast(consumer, 2, 30_000);
                assertEquals(2, got.size());
            } finally {
                consumer.shutdown();
            }
            assertTrue(Files.readString(broker.dir().resolve("logs/broker.log")).contains("self-signed certificate"),
                "a generated certificate is said at start");
        }
    }

    @Test
    void enforcingRefusesPlaintextBeforeExecutingAnything() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("b"), Map.of("tls.server.mode", "enforcing"))) {
            broker.start();
            DefaultMQProducer tls = producer(broker, true);
            try {
                assertEquals(SendStatus.SEND_OK, tls.send(message("EnforcedTopic")).getSendStatus());
            } finally {
                tls.shutdown();
            }
            DefaultMQProducer plain = producer(broker, false);
            try {
                assertThrows(Exception.class, () -> plain.send(message("EnforcedTopic")));
            } finally {
                plain.shutdown();
            }
            DefaultMQAdminExt admin = new DefaultMQAdminExt(5000);
            admin.setNamesrvAddr(broker.address());
            admin.setInstanceName(Clients.instanceName());
            admin.setUseTLS(true);
            admin.start();
            try {
                TopicStatsTable stats = admin.examineTopicStats("EnforcedTopic");
                long stored = stats.getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum();
                assertEquals(1, stored, "only the TLS client's message: the plaintext one was never executed");
            } finally {
                admin.shutdown();
            }
            assertTrue(Files.readString(broker.dir().resolve("logs/remoting.log"))
                .contains("this port takes TLS only"), "the refusal is logged");
        }
    }

    @Test
    void disabledRefusesTls() throws Exception {
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("b"), Map.of("tls.server.mode", "disabled"))) {
            broker.start();
            DefaultMQProducer tls = producer(broker, true);
            try {
                assertThrows(Exception.class, () -> tls.send(message("PlainTopic")));
            } finally {
                tls.shutdown();
            }
            DefaultMQProducer plain = producer(broker, false);
            try {
                assertEquals(SendStatus.SEND_OK, plain.send(message("PlainTopic")).getSendStatus());
            } finally {
                plain.shutdown();
            }
        }
    }
}
