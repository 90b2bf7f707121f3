package io.basalt.it.mixedha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

import io.basalt.it.Clients;

/** What the mixed-replica tests share: the official client's sends and reads, and CommitLog bytes on disk. */
final class MixedReplicas {
    /** mappedFileSizeCommitLog of both launchers' broker.conf. */
    static final int COMMIT_LOG_FILE_SIZE = 4 * 1024 * 1024;

    private MixedReplicas() {
    }

    /** An acknowledged send: the key it carries and where the master stored it. */
    record Acked(String key, String body, long commitLogOffset) {
    }

    static DefaultMQProducer producer(String namesrvAddr) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("pg-mixed");
        p.setNamesrvAddr(namesrvAddr);
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setPollNameServerInterval(1000);
        p.setRetryTimesWhenSendFailed(0);
        p.start();
        return p;
    }

    /** Creates {@code topic} on the master at {@code brokerAddr} and waits for its route on the NameServer. */
    static void createTopic(String namesrvAddr, String brokerAddr, String topic) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrvAddr);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            await().atMost(ofSeconds(40)).ignoreExceptions().until(() -> {
                admin.createAndUpdateTopicConfig(brokerAddr, new TopicConfig(topic, 4, 4, 6));
                return true;
            });
            await().atMost(ofSeconds(30)).ignoreExceptions()
                .until(() -> !admin.examineTopicRouteInfo(topic).getQueueDatas().isEmpty());
        } finally {
            admin.shutdown();
        }
    }

    /** The broker's runtime info (GET_BROKER_RUNTIME_INFO) as the official admin reads it. */
    static Map<String, String> runtimeInfo(String namesrvAddr, String brokerAddr) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrvAddr);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            return admin.fetchBrokerRuntimeStats(brokerAddr).getTable();
        } finally {
            admin.shutdown();
        }
    }

    /** Sends until one send is SEND_OK: on a SYNC_MASTER that means a slave acknowledged it. */
    static void awaitSlaveAttached(DefaultMQProducer producer, String topic) {
        await().atMost(ofSeconds(90)).pollInterval(ofSeconds(1)).ignoreExceptions().until(() -> producer.send(
            new Message(topic, "warm", "warm".getBytes(StandardCharsets.UTF_8))).getSendStatus() == SendStatus.SEND_OK);
    }

    /** Sends {@code count} messages one by one; returns those answered SEND_OK. */
    static List<Acked> send(DefaultMQProducer producer, String topic, int count) throws Exception {
        List<Acked> acked = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "k-" + i;
            String body = "mixed-replica-" + i + "-" + "x".repeat(200 + i % 300);
            SendResult r = producer.send(new Message(topic, "T", key, body.getBytes(StandardCharsets.UTF_8)));
            if (r.getSendStatus() == SendStatus.SEND_OK) {
                acked.add(new Acked(key, body, MessageDecoder.decodeMessageId(r.getOffsetMsgId()).getOffset()));
            }
        }
        return acked;
    }

    /** Reads {@code topic} with the official lite-pull consumer until every acknowledged key arrived (or 60 s). */
    static Map<String, String> readAll(String namesrvAddr, String topic, List<Acked> acked) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer("cg-mixed");
        c.setNamesrvAddr(namesrvAddr);
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "T");
        c.start();
        Map<String, String> read = new HashMap<>();
        Set<String> expected = new HashSet<>();
        acked.forEach(a -> expected.add(a.key()));
        try {
            long deadline = System.currentTimeMillis() + 60_000;
            while (!read.keySet().containsAll(expected) && System.currentTimeMillis() < deadline) {
                for (MessageExt m : c.poll(1000)) {
                    read.put(m.getKeys(), new String(m.getBody(), StandardCharsets.UTF_8));
                }
            }
        } finally {
            c.shutdown();
        }
        return read;
    }

    /** Every acknowledged message was read with its body. */
    static void assertAllRead(List<Acked> acked, Map<String, String> read) {
        List<String> missing = acked.stream().filter(a -> !a.body().equals(read.get(a.key()))).map(Acked::key).toList();
        assertTrue(missing.isEmpty(), missing.size() + " of " + acked.size() + " acknowledged messages not read back,"
            + " e.g. " + missing.stream().limit(5).toList());
    }

    /** The CommitLog bytes [from, to) of the store in {@code storeDir}, from its files in offset order. */
    static byte[] commitLogBytes(Path storeDir, long from, long to) throws IOException {
        byte[] out = new byte[Math.toIntExact(to - from)];
        List<Path> files;
        try (Stream<Path> s = Files.list(storeDir.resolve("commitlog"))) {
            files = s.filter(p -> p.getFileName().toString().matches("\\d{20}")).sorted().toList();
        }
        long covered = 0;
        for (Path p : files) {
            long base = Long.parseLong(p.getFileName().toString());
            long lo = Math.max(base, from);
            long hi = Math.min(base + COMMIT_LOG_FILE_SIZE, to);
            if (lo >= hi) {
                continue;
            }
            byte[] all = Files.readAllBytes(p);
            System.arraycopy(all, (int) (lo - base), out, (int) (lo - from), (int) (hi - lo));
            covered += hi - lo;
        }
        assertTrue(covered == to - from, "the files of " + storeDir + " cover [" + from + ", " + to + ")");
        return out;
    }

    /**
     * The slave's CommitLog holds the master's bytes, identical, up to the end of the last acknowledged message
     * (which is at least {@code 1} record past its offset).
     */
    static void assertSameCommitLog(Path masterStore, Path slaveStore, List<Acked> acked) throws IOException {
        long lastOffset = acked.stream().mapToLong(Acked::commitLogOffset).max().orElseThrow();
        // the record's length is its first int
        byte[] sizeBytes = commitLogBytes(masterStore, lastOffset, lastOffset + 4);
        int size = java.nio.ByteBuffer.wrap(sizeBytes).getInt();
        long end = lastOffset + size;
        assertArrayEquals(commitLogBytes(masterStore, 0, end), commitLogBytes(slaveStore, 0, end),
            "CommitLog [0, " + end + ") is the same on master and slave");
    }
}
