package io.basalt.it.reliability;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * More asynchronous sends than a SYNC_FLUSH broker's one send thread and its small queue can take: some are
 * answered SYSTEM_BUSY (queue full, or {@code [TIMEOUT_CLEAN_QUEUE]}), and reading the topic back shows every
 * acknowledged message exactly once and none of those answered busy. A raw client that sends requests with
 * large answers and never reads them is closed as {@code unwritable}; the broker's memory stays bounded and a
 * normal send succeeds at once afterwards.
 */
class OverloadTest {
    private static final long MIB = 1024 * 1024;
    private static final String TOPIC = "OverloadTopic";

    @TempDir
    Path dir;

    @Test
    void busyAnswersAreNeverStoredAndAClientThatDoesNotReadIsClosed() throws Exception {
        int messages = Figures.scaled("overloadMessages", 16_000);
        int producers = 4;
        Figures figures = Figures.of("overload");
        BrokerProcess broker = BrokerProcess.create(dir, Map.of(
            "flushDiskType", "SYNC_FLUSH",
            "sendMessageThreadPoolNums", "1",
            "sendThreadPoolQueueCapacity", "16",
            "waitTimeMillsInSendQueue", "20",
            "remotingUnwritableCloseMillis", "3000"));
        try {
            broker.start();
            DefaultMQProducer warm = Clients.producer(broker, "pg-overload-warm");
            warm.setRetryTimesWhenSendFailed(0);
            warm.send(new Message(TOPIC, "T", "warm-up", new byte[1]));
            BrokerMemorySampler memory = BrokerMemorySampler.start(broker);

            Map<String, String> acknowledged = new ConcurrentHashMap<>();
            Set<String> busy = ConcurrentHashMap.newKeySet();
            AtomicLong timeoutCleanQueue = new AtomicLong();
            Map<String, String> otherErrors = new ConcurrentHashMap<>();
            java.util.concurrent.atomic.AtomicReference<String> firstOtherError = new java.util.concurrent.atomic.AtomicReference<>();
            CountDownLatch answered = new CountDownLatch(messages);
            List<DefaultMQProducer> senders = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                DefaultMQProducer producer = Clients.producer(broker, "pg-overload-" + p);
                // a retry would resend a message answered busy: each send is tried once
                producer.setRetryTimesWhenSendAsyncFailed(0);
                producer.setRetryTimesWhenSendFailed(0);
                producer.setSendMsgTimeout(30_000);
                senders.add(producer);
            }
            byte[] padding = new byte[200];
            for (int i = 0; i < messages; i++) {
                String key = "k-" + i;
                byte[] body = (key + new String(padding, StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1);
                senders.get(i % producers).send(new Message(TOPIC, "T", key, body), new SendCallback() {
                    @Override
                    public void onSuccess(SendResult result) {
                        if (result.getSendStatus() == SendStatus.SEND_OK) {
                            acknowledged.put(key, result.getMsgId());
                        } else {
                            otherErrors.put(key, result.getSendStatus().name());
                        }
                        answered.countDown();
                    }

                    @Override
                    public void onException(Throwable e) {
                        if (responseCode(e) == ResponseCode.SYSTEM_BUSY) {
                            busy.add(key);
                            if (String.valueOf(e.getMessage()).contains("TIMEOUT_CLEAN_QUEUE")) {
                                timeoutCleanQueue.incrementAndGet();
                            }
                        } else {
                            otherErrors.put(key, errorKind(e));
                            firstOtherError.compareAndSet(null, String.valueOf(e.getMessage()).replaceAll("\\s+", "_"));
                        }
                        answered.countDown();
                    }
                });
            }
            assertTrue(answered.await(45, TimeUnit.SECONDS), "every send answered");
            for (DefaultMQProducer producer : senders) {
                producer.shutdown();
            }

            // read the topic back: everything stored, by key
            long stored = storedMessages(broker, TOPIC);
            Map<String, Integer> readCount = new HashMap<>();
            DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-overload", TOPIC, "*");
            try {
                for (MessageExt m : Clients.pollAtLeast(consumer, (int) stored, 30_000)) {
                    readCount.merge(m.getKeys(), 1, Integer::sum);
                }
            } finally {
                consumer.shutdown();
            }
            long ackedMissing = acknowledged.keySet().stream().filter(k -> !readCount.containsKey(k)).count();
            long duplicated = readCount.values().stream().filter(n -> n > 1).count();
            long busyButStored = busy.stream().filter(readCount::containsKey).count();

            // a client that sends requests with large answers (a 512 KiB message each) and never reads them
            Map<String, Long> closedBefore = BrokerMemorySampler.connectionsClosed(broker);
            long bigOffset = MessageDecoder.decodeMessageId(
                warm.send(new Message("BigTopic", "T", new byte[512 * 1024])).getOffsetMsgId()).getOffset();
            AtomicLong requestsWritten = new AtomicLong();
            Socket nonReader = new Socket();
            nonReader.setReceiveBufferSize(4096);
            nonReader.connect(new InetSocketAddress("127.0.0.1", broker.port()), 5_000);
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = nonReader.getOutputStream();
                    for (int i = 0; i < 100_000; i++) {
                        out.write(viewMessageFrame(bigOffset, i));
                        requestsWritten.incrementAndGet();
                    }
                } catch (IOException closed) {
                    // the broker closed the connection (or the test did)
                }
            }, "non-reading-client");
            writer.start();
            long unwritableCloses;
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() ->
                    BrokerMemorySampler.connectionsClosed(broker).getOrDefault("unwritable", 0L)
                        > closedBefore.getOrDefault("unwritable", 0L));
                unwritableCloses = BrokerMemorySampler.connectionsClosed(broker).getOrDefault("unwritable", 0L)
                    - closedBefore.getOrDefault("unwritable", 0L);
            } finally {
                nonReader.close();
                writer.join();
            }

            // full recovery: a normal send succeeds at once, without a retry
            SendStatus recovered = warm.send(new Message(TOPIC, "T", "after", new byte[16])).getSendStatus();
            warm.shutdown();
            memory.close();

            closedBefore.forEach((reason, n) -> figures.put("closedDuringOverload." + reason, n));
            figures.put("sent", messages).put("acknowledged", acknowledged.size()).put("busyAnswers", busy.size())
                .put("timeoutCleanQueue", timeoutCleanQueue.get()).put("otherErrors", otherErrors.size())
                .put("stored", stored).put("lost", ackedMissing).put("duplicated", duplicated)
                .put("busyButStored", busyButStored)
                .put("nonReaderRequestsWritten", requestsWritten.get()).put("unwritableCloses", unwritableCloses)
                .put("rssStartMiB", memory.rssAtStart() / MIB).put("rssMaxMiB", memory.rssMax() / MIB)
                .put("heapMaxMiB", memory.heapMax() / MIB).put("directMaxMiB", memory.directMax() / MIB)
                .put("otherErrorKinds", otherErrorKinds(otherErrors))
                .put("firstOtherError", firstOtherError.get()).report();
            assertTrue(busy.size() > 0, "the overload produced busy answers");
            assertEquals(0, ackedMissing, "every acknowledged message is stored");
            assertEquals(0, duplicated, "no message is stored twice");
            assertEquals(0, busyButStored, "no message answered busy is stored");
            assertTrue(unwritableCloses > 0, "the client that does not read was closed as unwritable");
            assertEquals(SendStatus.SEND_OK, recovered, "a send succeeds once the overload is over");
            assertTrue(memory.rssMax() < memory.rssAtStart() + 400 * MIB,
                "RSS high-water " + memory.rssMax() / MIB + " MiB from " + memory.rssAtStart() / MIB + " MiB");
            assertTrue(memory.directMax() < 160 * MIB, "direct memory high-water " + memory.directMax() / MIB + " MiB");
        } finally {
            broker.close();
        }
    }

    /** A short name for a failure that is not a busy answer: exception class and response code. */
    private static String errorKind(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ":" + responseCode(e);
    }

    /** The broker's response code carried by a failed send (possibly wrapped), or -1. */
    private static int responseCode(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MQBrokerException b) {
                return b.getResponseCode();
            }
            if (t instanceof MQClientException c && c.getResponseCode() > 0) {
                return c.getResponseCode();
            }
        }
        return -1;
    }

    /** Counts of the other failures by kind, as {@code kind*n,kind*n}. */
    private static String otherErrorKinds(Map<String, String> otherErrors) {
        Map<String, Integer> byKind = new java.util.TreeMap<>();
        otherErrors.values().forEach(k -> byKind.merge(k, 1, Integer::sum));
        StringBuilder b = new StringBuilder();
        byKind.forEach((k, n) -> b.append(b.length() == 0 ? "" : ",").append(k).append('*').append(n));
        return b.length() == 0 ? "none" : b.toString();
    }

    /** Messages stored in a topic: the sum over its queues of max - min offset. */
    private static long storedMessages(BrokerProcess broker, String topic) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            long n = 0;
            for (TopicOffset o : admin.examineTopicStats(topic).getOffsetTable().values()) {
                n += o.getMaxOffset() - o.getMinOffset();
            }
            return n;
        } finally {
            admin.shutdown();
        }
    }

    /** A VIEW_MESSAGE_BY_ID (code 33) request frame for the record at {@code offset}. */
    private static byte[] viewMessageFrame(long offset, int opaque) {
        byte[] header = ("{\"code\":33,\"extFields\":{\"offset\":\"" + offset + "\"},\"flag\":0,\"language\":\"JAVA\","
            + "\"opaque\":" + opaque + ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":453}").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + header.length).putInt(4 + header.length).putInt(header.length).put(header).array();
    }
}
