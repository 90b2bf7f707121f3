package io.basalt.it.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DELETE_TOPIC_IN_BROKER with DefaultMQAdminExt 5.2.0 against a broker process: the topic created
 * again is empty (max offset 0, no old message delivered), also across a clean restart and a kill -9
 * right after the deletion.
 */
class TopicDeletionTest {
    private static final String TOPIC = "DeletedAndBack";
    private static final int SENT = 20;

    @TempDir
    Path dir;
    private BrokerProcess broker;

    @AfterEach
    void stop() throws InterruptedException {
        if (broker != null) {
            broker.close();
        }
    }

    private enum Restart { NONE, CLEAN, KILL }

    @Test
    void aTopicCreatedAgainIsEmpty() throws Exception {
        deleteThenCreateAgain(Restart.NONE);
    }

    @Test
    void aTopicCreatedAgainAfterACleanRestartIsEmpty() throws Exception {
        deleteThenCreateAgain(Restart.CLEAN);
    }

    @Test
    void aTopicCreatedAgainAfterAKillRightAfterTheDeletionIsEmpty() throws Exception {
        deleteThenCreateAgain(Restart.KILL);
    }

    private void deleteThenCreateAgain(Restart restart) throws Exception {
        broker = BrokerProcess.create(dir, Map.of());
        broker.start();
        withAdmin(admin -> admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, 2, 2, 6)));
        send("old-", SENT);
        DefaultLitePullConsumer old = AdminClients.litePull(broker.address(), "cg-before-delete", TOPIC);
        try {
            assertTrue(pollAtLeast(old, 5, 30_000).size() >= 5, "some of the old messages were consumed");
        } finally {
            old.shutdown();
        }

        withAdmin(admin -> admin.deleteTopicInBroker(Set.of(broker.address()), TOPIC));
        switch (restart) {
            case CLEAN -> {
                broker.stopGracefully();
                assertTrue(Files.notExists(broker.storeDir().resolve("abort")), "the stop was clean");
                broker.start();
            }
            case KILL -> {
                broker.killHard();
                assertTrue(Files.exists(broker.storeDir().resolve("abort")), "the kill left the abort marker");
                broker.start();
            }
            case NONE -> { }
        }

        withAdmin(admin -> {
            admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, 2, 2, 6));
            for (int queueId = 0; queueId < 2; queueId++) {
                MessageQueue mq = new MessageQueue(TOPIC, broker.brokerName(), queueId);
                assertEquals(0, admin.maxOffset(mq), "max offset of " + mq);
            }
        });
        send("new-", 1);
        DefaultLitePullConsumer fresh = AdminClients.litePull(broker.address(), "cg-after-delete", TOPIC);
        List<String> bodies = new ArrayList<>();
        try {
            for (MessageExt m : pollAtLeast(fresh, 1, 30_000)) {
                bodies.add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
            // whatever else the queues hold would arrive now
            for (MessageExt m : fresh.poll(2000)) {
                bodies.add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
        } finally {
            fresh.shutdown();
        }
        assertEquals(List.of("new-0"), bodies, "only the message sent after the deletion is delivered");
    }

    private interface AdminCall {
        void run(DefaultMQAdminExt admin) throws Exception;
    }

    private void withAdmin(AdminCall call) throws Exception {
        DefaultMQAdminExt admin = AdminClients.admin(broker.address());
        try {
            call.run(admin);
        } finally {
            admin.shutdown();
        }
    }

    private void send(String prefix, int n) throws Exception {
        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-topic-deletion");
        try {
            for (int i = 0; i < n; i++) {
                Message m = new Message(TOPIC, (prefix + i).getBytes(StandardCharsets.UTF_8));
                assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
            }
        } finally {
            producer.shutdown();
        }
    }

    private static List<MessageExt> pollAtLeast(DefaultLitePullConsumer c, int count, long timeoutMs) {
        List<MessageExt> received = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (received.size() < count && System.currentTimeMillis() < deadline) {
            received.addAll(c.poll(1000));
        }
        return received;
    }
}
