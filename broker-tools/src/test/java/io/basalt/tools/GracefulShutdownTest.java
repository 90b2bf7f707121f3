package io.basalt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.it.BrokerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM and SIGINT (what {@code bin/mqbroker stop} and Ctrl-C send) stop the broker cleanly: the
 * shutdown hook completes ("broker shut down"), the abort marker is gone, offsets and topics persisted, and the next start is a clean one (no crash
 * recovery in store.log) that serves every message and committed offset.
 */
class GracefulShutdownTest {
    /** The JVM's exit status after its shutdown hooks ran on SIGTERM / SIGINT (128 + signal). */
    private static final int SIGTERM_EXIT = 143;
    private static final int SIGINT_EXIT = 130;

    @TempDir
    Path dir;

    @Test
    void sigtermAndSigintLeaveACleanStoreBehind() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("broker"))) {
            Path abort = broker.storeDir().resolve("abort");
            assertThat(abort).exists();
            sendAndCommit(broker, 20, 5);
            assertThat(broker.signalAndWait("TERM")).isEqualTo(SIGTERM_EXIT);
            assertCleanlyStopped(broker);

            broker.start();
            assertThat(abort).exists();
            assertServes(broker, 20, 5);
            sendAndCommit(broker, 10, 25);
            assertThat(broker.signalAndWait("INT")).isEqualTo(SIGINT_EXIT);
            assertCleanlyStopped(broker);

            broker.start();
            assertServes(broker, 30, 25);
            Path storeLog = broker.dir().resolve("logs/store.log");
            assertThat(Files.readString(storeLog)).doesNotContain("crash recovery");
            assertThat(broker.signalAndWait("TERM")).isEqualTo(SIGTERM_EXIT);
            assertCleanlyStopped(broker);
        }
    }

    private static void assertCleanlyStopped(BrokerProcess broker) throws Exception {
        assertThat(broker.storeDir().resolve("abort")).doesNotExist();
        assertThat(broker.storeDir().resolve("config/consumerOffset.json")).exists();
        assertThat(Files.readString(broker.storeDir().resolve("config/topics.json"))).contains("ShutdownTopic");
        String log = Files.readString(broker.dir().resolve("logs/broker.log"));
        assertThat(log).contains("broker shut down");
    }

    private static void sendAndCommit(BrokerProcess broker, int count, long commitOffset) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("shutdown_producer");
        producer.setNamesrvAddr(broker.address());
        producer.setInstanceName("shutdown-" + System.nanoTime());
        producer.start();
        try {
            for (int i = 0; i < count; i++) {
                // One queue, so offsets are predictable.
                assertThat(producer.send(new Message("ShutdownTopic", new byte[64]),
                    new MessageQueue("ShutdownTopic", broker.brokerName(), 0)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            }
        } finally {
            producer.shutdown();
        }
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("shutdown_group");
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName("shutdown-" + System.nanoTime());
        consumer.setAutoCommit(false);
        consumer.start();
        try {
            MessageQueue mq = new MessageQueue("ShutdownTopic", broker.brokerName(), 0);
            consumer.assign(List.of(mq));
            LitePullConsumers.awaitFirstPull(consumer);
            consumer.commitSync(Map.of(mq, commitOffset), true);
        } finally {
            consumer.shutdown();
        }
    }

    private static void assertServes(BrokerProcess broker, long messages, long committed) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName("shutdown-admin-" + System.nanoTime());
        admin.start();
        try {
            TopicStatsTable stats = admin.examineTopicStats("ShutdownTopic");
            long max = stats.getOffsetTable().values().stream().mapToLong(o -> o.getMaxOffset()).sum();
            assertThat(max).isEqualTo(messages);
        } finally {
            admin.shutdown();
        }
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("shutdown_group");
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName("shutdown-" + System.nanoTime());
        consumer.setAutoCommit(false);
        consumer.start();
        try {
            MessageQueue mq = new MessageQueue("ShutdownTopic", broker.brokerName(), 0);
            consumer.assign(List.of(mq));
            assertThat(consumer.committed(mq)).isEqualTo(committed);
        } finally {
            consumer.shutdown();
        }
    }
}
