package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerProcess;
import io.basalt.it.MqAdmin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.body.QueryConsumeQueueResponseBody;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official 5.2.0 {@code mqadmin} store maintenance subcommands against a Basalt broker with small CommitLog
 * files, {@code fileReservedTime=1} and a {@code deleteWhen} hour twelve hours away: queryCq, cleanUnusedTopic,
 * deleteExpiredCommitLog, cleanExpiredCQ, and the two requests Basalt refuses (setCommitLogReadAheadMode,
 * resetMasterFlushOffset).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoreMaintenanceCommandsTest {
    static final String TOPIC = "MaintTopic";
    static final int MESSAGES = 60;
    static final int FILE_SIZE = 64 * 1024;

    @TempDir
    static Path dir;
    static BrokerProcess broker;
    static final List<SendResult> sent = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        int notNow = (ZonedDateTime.now().getHour() + 12) % 24;
        broker = BrokerProcess.create(dir.resolve("broker"), Map.of(
            "mappedFileSizeCommitLog", Integer.toString(FILE_SIZE),
            "fileReservedTime", "1",
            "deleteWhen", String.format("%02d", notNow),
            "cleanResourceInterval", "500",
            "diskMaxUsedSpaceRatio", "95"));
        broker.start();
        String out = mqadmin("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", TOPIC, "-r", "1", "-w", "1");
        assertTrue(out.contains("success"), out);
        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-maint");
        try {
            // random, so that the client's compression (bodies over 4 KiB) does not shrink them
            byte[] body = new byte[4096];
            new java.util.Random(42).nextBytes(body);
            for (int i = 0; i < MESSAGES; i++) {
                SendResult r = producer.send(new Message(TOPIC, "TagA", "maint-" + i, body));
                assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                sent.add(r);
            }
        } finally {
            producer.shutdown();
        }
        assertTrue(commitLogFiles().size() >= 3, "several CommitLog files: " + commitLogFiles());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (broker != null) {
            broker.close();
        }
    }

    static String mqadmin(String... args) {
        return MqAdmin.run(args);
    }

    static List<Path> commitLogFiles() throws IOException {
        try (Stream<Path> s = Files.list(broker.storeDir().resolve("commitlog"))) {
            return s.sorted(Comparator.comparing(Path::getFileName)).toList();
        }
    }

    static long physicalOffset(SendResult r) throws Exception {
        return MessageDecoder.decodeMessageId(r.getOffsetMsgId()).getOffset();
    }

    @Test
    @Order(1)
    void queryCqPrintsTheEntriesFromTheIndex() throws Exception {
        String out = mqadmin("queryCq", "-b", broker.address(), "-n", broker.address(), "-t", TOPIC, "-q", "0", "-i", "2",
            "-c", "3");
        assertFalse(out.contains("Exception"), out);
        assertTrue(out.contains("max: " + MESSAGES + ", min: 0"), out);
        for (int i = 2; i < 5; i++) {
            assertTrue(out.contains("idx: " + i + "\n"), out);
            assertTrue(out.contains("physicOffset=" + physicalOffset(sent.get(i)) + ","), out);
        }
        assertFalse(out.contains("idx: 5\n"), out);
        assertFalse(out.contains("idx: 1\n"), out);

        String withGroup = mqadmin("queryCq", "-b", broker.address(), "-n", broker.address(), "-t", TOPIC, "-q", "0",
            "-i", "0", "-c", "1", "-g", "cg-offline");
        assertTrue(withGroup.contains("cg-offline@" + TOPIC + " is not online!"), withGroup);

        DefaultMQAdminExt admin = AdminClients.admin(broker.address());
        try {
            QueryConsumeQueueResponseBody body = admin.queryConsumeQueue(broker.address(), TOPIC, 0, MESSAGES - 2, 10, null);
            assertEquals(2, body.getQueueData().size(), "the queue's end stops the entries");
            assertEquals(physicalOffset(sent.get(MESSAGES - 1)), body.getQueueData().get(1).getPhysicOffset());
            assertTrue(body.getQueueData().get(1).getPhysicSize() > 4096);
        } finally {
            admin.shutdown();
        }
        String missing = mqadmin("queryCq", "-b", broker.address(), "-n", broker.address(), "-t", TOPIC, "-q", "7",
            "-i", "0");
        assertTrue(missing.contains("7@" + TOPIC + " is not exist!"), missing);
    }

    /**
     * A consume queue the topic table does not know: a copy of the topic's queue under a name the broker does not
     * take for a topic, so that the start does not put it back into the topic table.
     */
    @Test
    @Order(2)
    void cleanUnusedTopicDeletesTheConsumeQueuesOfTopicsWithoutConfig() throws Exception {
        BrokerProcess own = BrokerProcess.create(dir.resolve("unused"), Map.of());
        try {
            own.start();
            DefaultMQProducer producer = AdminClients.producer(own.address(), "pg-unused");
            try {
                for (int i = 0; i < 3; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message("KeptTopic", ("kept-" + i).getBytes()),
                        new MessageQueue("KeptTopic", own.brokerName(), 0)).getSendStatus());
                }
            } finally {
                producer.shutdown();
            }
            own.stopGracefully();
            Path queues = own.storeDir().resolve("consumequeue");
            Path orphan = queues.resolve("Legacy.Orphan");
            copyTree(queues.resolve("KeptTopic"), orphan);
            own.start();
            assertTrue(Files.exists(orphan.resolve("0")), "the orphan is loaded and kept until asked");

            String out = mqadmin("cleanUnusedTopic", "-b", own.address(), "-n", own.address());
            assertTrue(out.contains("success"), out);
            assertFalse(Files.exists(orphan), "the orphan's consume queue is deleted");
            assertTrue(Files.exists(queues.resolve("KeptTopic").resolve("0")), "the topic's own queue stays");
            DefaultMQAdminExt admin = AdminClients.admin(own.address());
            try {
                assertEquals(3, admin.maxOffset(new MessageQueue("KeptTopic", own.brokerName(), 0)));
            } finally {
                admin.shutdown();
            }
        } finally {
            own.close();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    @Test
    @Order(3)
    void deleteExpiredCommitLogDeletesAnExpiredFileOutsideTheDeleteWhenHour() throws Exception {
        List<Path> files = commitLogFiles();
        Path oldest = files.get(0);
        Path second = files.get(1);
        FileTime twoHoursAgo = FileTime.from(Instant.now().minus(Duration.ofHours(2)));
        Files.setLastModifiedTime(oldest, twoHoursAgo);
        // expired, but the deleteWhen hour is twelve hours away: the cleaning rounds (every 500 ms) leave it
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> Files.exists(oldest));

        String out = mqadmin("deleteExpiredCommitLog", "-b", broker.address(), "-n", broker.address());
        assertTrue(out.contains("success"), out);
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(oldest));
        assertTrue(Files.exists(second), "a file younger than fileReservedTime stays");
    }

    @Test
    @Order(4)
    void cleanExpiredCqLeavesTheQueueStartingAtItsFirstMessageStillInTheCommitLog() throws Exception {
        String out = mqadmin("cleanExpiredCQ", "-b", broker.address(), "-n", broker.address());
        assertTrue(out.contains("success"), out);
        DefaultMQAdminExt admin = AdminClients.admin(broker.address());
        try {
            MessageQueue mq = new MessageQueue(TOPIC, broker.brokerName(), 0);
            long min = admin.minOffset(mq);
            assertTrue(min > 0, "the queue's head went with the CommitLog file: " + min);
            long commitLogMin = Long.parseLong(commitLogFiles().get(0).getFileName().toString());
            assertTrue(physicalOffset(sent.get((int) min)) >= commitLogMin);
            assertTrue(physicalOffset(sent.get((int) min - 1)) < commitLogMin);
            assertEquals(MESSAGES, admin.maxOffset(mq), "the queue keeps its position");
        } finally {
            admin.shutdown();
        }
    }

    @Test
    @Order(5)
    void readAheadModeAndMasterFlushOffsetAreRefusedWithWhy() {
        String readAhead = mqadmin("setCommitLogReadAheadMode", "-b", broker.address(), "-n", broker.address(), "-m", "1");
        assertTrue(readAhead.contains("SET_COMMITLOG_READ_MODE is not supported by Basalt"), readAhead);
        String flushOffset = mqadmin("resetMasterFlushOffset", "-b", broker.address(), "-n", broker.address(), "-o", "0");
        assertTrue(flushOffset.contains("RESET_MASTER_FLUSH_OFFSET is not supported by Basalt"), flushOffset);
        assertFalse(flushOffset.contains("reset master flush offset to 0 success"), flushOffset);
    }
}
