package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official 5.2.0 {@code mqadmin} subcommands operators use, run (in this JVM, through
 * {@code MQAdminStartup}) against a Basalt broker that is its own NameServer: each prints what RocketMQ
 * users expect and no error.
 */
class MqAdminCommandsTest {
    @TempDir
    static Path dir;
    static BrokerHandle broker;
    static final List<SendResult> sent = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerHandle.start(dir, Map.of());
        String out = mqadmin("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", "CliTopic", "-r", "2", "-w", "2");
        assertTrue(out.contains("create topic to " + broker.address() + " success"), out);

        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-cli");
        try {
            for (int i = 0; i < 10; i++) {
                SendResult r = producer.send(new Message("CliTopic", "TagA", "cli-key-" + i,
                    ("cli-body-" + i).getBytes(StandardCharsets.UTF_8)));
                assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                sent.add(r);
            }
        } finally {
            producer.shutdown();
        }
        DefaultLitePullConsumer consumer = AdminClients.litePull(broker.address(), "cg-cli", "CliTopic");
        DefaultMQAdminExt admin = AdminClients.admin(broker.address());
        try {
            List<MessageExt> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                got.addAll(consumer.poll(500));
                return got.size() >= 10;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(100);
                ConsumeStats stats = admin.examineConsumeStats("cg-cli");
                return stats.getOffsetTable().size() == 2 && stats.computeTotalDiff() == 0;
            });
        } finally {
            consumer.shutdown();
            admin.shutdown();
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** Runs one mqadmin subcommand and returns what it printed (stdout and stderr). */
    static String mqadmin(String... args) {
        return MqAdmin.run(args);
    }

    private static void assertNoError(String output) {
        assertFalse(output.contains("Exception"), output);
    }

    @Test
    void topicList() {
        String out = mqadmin("topicList", "-n", broker.address());
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.trim().equals("CliTopic")), out);
    }

    @Test
    void topicStatus() {
        String out = mqadmin("topicStatus", "-n", broker.address(), "-t", "CliTopic");
        assertNoError(out);
        assertTrue(out.contains("#Max Offset"), out);
        assertEquals(2, out.lines().filter(l -> l.startsWith("broker-a")).count(), out);
    }

    @Test
    void consumerProgress() {
        String out = mqadmin("consumerProgress", "-n", broker.address(), "-g", "cg-cli");
        assertNoError(out);
        assertTrue(out.contains("CliTopic"), out);
        assertTrue(out.contains("Diff Total: 0"), out);
    }

    @Test
    void consumerProgressOfEveryGroup() {
        String out = mqadmin("consumerProgress", "-n", broker.address());
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("cg-cli") && l.contains("OFFLINE")), out);
    }

    @Test
    void queryMsgByKey() {
        String out = mqadmin("queryMsgByKey", "-n", broker.address(), "-t", "CliTopic", "-k", "cli-key-3");
        assertNoError(out);
        assertTrue(out.contains(sent.get(3).getMsgId()), out);
    }

    @Test
    void queryMsgById() {
        String out = mqadmin("queryMsgById", "-n", broker.address(), "-i", sent.get(4).getOffsetMsgId());
        assertNoError(out);
        assertTrue(out.contains("cli-key-4"), out);
        assertTrue(out.contains("CliTopic"), out);
    }

    @Test
    void brokerStatus() {
        String out = mqadmin("brokerStatus", "-n", broker.address(), "-b", broker.address());
        assertNoError(out);
        assertTrue(out.contains("msgPutTotalTodayNow"), out);
        assertTrue(out.contains("brokerVersionDesc"), out);
    }

    @Test
    void updateTopicByClusterTopicRouteAndDeleteTopic() {
        String created = mqadmin("updateTopic", "-n", broker.address(), "-c", "DefaultCluster", "-t", "CliDeleted",
            "-r", "3", "-w", "3");
        assertNoError(created);
        assertTrue(created.contains("create topic to " + broker.address() + " success"), created);

        String route = mqadmin("topicRoute", "-n", broker.address(), "-t", "CliDeleted");
        assertNoError(route);
        assertTrue(route.contains("\"writeQueueNums\":3"), route);

        String deleted = mqadmin("deleteTopic", "-n", broker.address(), "-c", "DefaultCluster", "-t", "CliDeleted");
        assertNoError(deleted);
        assertTrue(deleted.contains("delete topic [CliDeleted] from cluster [DefaultCluster] success"), deleted);
        assertFalse(mqadmin("topicList", "-n", broker.address()).contains("CliDeleted"));
    }

    @Test
    void clusterList() {
        String out = mqadmin("clusterList", "-n", broker.address());
        assertNoError(out);
        assertTrue(out.contains("DefaultCluster"), out);
        assertTrue(out.contains(broker.address()), out);
        assertTrue(out.contains("V5_2_0"), out);
    }
}
