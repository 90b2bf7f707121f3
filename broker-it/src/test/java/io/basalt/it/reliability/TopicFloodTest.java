package io.basalt.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * A flood of sends to new topic names under a 2,048-fd limit, beside a producer sending to one topic: the
 * normal producer gets no SYSTEM_BUSY (topics.json is written in the background, batched), a flooding host
 * beyond autoCreateTopicPerClientPerSecond is refused with TOPIC_NOT_EXIST, and after a kill -9 every
 * acknowledged message is readable, of topics created too late for the last topics.json write included.
 */
class TopicFloodTest {
    private static final int FD_LIMIT = 2048;

    @TempDir
    Path dir;

    /**
     * The broker's response code of a failed send: the producer throws it as MQBrokerException, or, for a code it
     * retries (TOPIC_NOT_EXIST among them), as MQClientException carrying the code once its retries are spent.
     */
    private static int responseCode(Exception e) {
        if (e instanceof MQBrokerException b) {
            return b.getResponseCode();
        }
        if (e instanceof MQClientException c) {
            return c.getResponseCode();
        }
        return -1;
    }

    @Test
    void aFloodOfNewTopicsStarvesNobodyAndLosesNothingAcrossAKill() throws Exception {
        int floodTopics = Figures.scaled("topicFloodTopics", 300);
        Figures figures = Figures.of("topic-flood");
        // open consume-queue files bounded well under the fd limit: the flood's thousands of queue files
        // must not exhaust descriptors however many topics it creates
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("autoCreateTopicPerClientPerSecond", "100",
                "maxOpenConsumeQueueFiles", "512"))
            .withOpenFileLimit(FD_LIMIT);
        Set<String> normalAcked = ConcurrentHashMap.newKeySet();
        Map<String, Integer> floodAcked = new ConcurrentHashMap<>();
        AtomicLong normalBusy = new AtomicLong();
        AtomicLong normalOtherErrors = new AtomicLong();
        AtomicLong maxFds = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong otherFloodErrors = new AtomicLong();
        try {
            broker.start();
            DefaultMQProducer normal = Clients.producer(broker, "pg-normal");
            DefaultMQProducer flooder = Clients.producer(broker, "pg-flood");
            flooder.setRetryTimesWhenSendFailed(0);
            flooder.setSendMsgTimeout(5_000);
            AtomicBoolean flooding = new AtomicBoolean(true);
            Thread normalSender = new Thread(() -> {
                for (int i = 0; flooding.get(); i++) {
                    String key = "n-" + i;
                    try {
                        if (normal.send(new Message("NormalTopic", "T", key, key.getBytes(StandardCharsets.UTF_8)))
                            .getSendStatus() == SendStatus.SEND_OK) {
                            normalAcked.add(key);
                        }
                    } catch (Exception e) {
                        (responseCode(e) == ResponseCode.SYSTEM_BUSY ? normalBusy : normalOtherErrors).incrementAndGet();
                    }
                }
            }, "normal-producer");
            Thread fdSampler = new Thread(() -> {
                Path fds = Path.of("/proc", Long.toString(broker.pid()), "fd");
                while (flooding.get()) {
                    try (Stream<Path> open = Files.list(fds)) {
                        maxFds.accumulateAndGet(open.count(), Math::max);
                        Thread.sleep(50);
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "fd-sampler");
            // the normal producer's first send creates its topic before the flood starts
            normal.send(new Message("NormalTopic", "T", "warm-up", new byte[1]));
            normalAcked.add("warm-up");
            normalSender.start();
            fdSampler.start();
            long normalBefore = normalAcked.size();
            long floodStart = System.nanoTime();
            try {
                for (int i = 0; i < floodTopics; i++) {
                    String topic = "Flood-" + i;
                    try {
                        if (flooder.send(new Message(topic, "F", topic.getBytes(StandardCharsets.UTF_8)))
                            .getSendStatus() == SendStatus.SEND_OK) {
                            floodAcked.merge(topic, 1, Integer::sum);
                        }
                    } catch (Exception e) {
                        (responseCode(e) == ResponseCode.TOPIC_NOT_EXIST ? refused : otherFloodErrors).incrementAndGet();
                    }
                }
            } finally {
                flooding.set(false);
                normalSender.join();
                fdSampler.join();
            }
            double floodSeconds = (System.nanoTime() - floodStart) / 1e9;
            long normalDuringFlood = normalAcked.size() - normalBefore;
            normal.shutdown();
            flooder.shutdown();

            // kill -9 right after the flood: the newest topics may not be in topics.json yet
            String topicsJson = Files.readString(broker.storeDir().resolve("config/topics.json"));
            long notYetPersisted = floodAcked.keySet().stream().filter(t -> !topicsJson.contains("\"" + t + "\"")).count();
            broker.killHard();
            broker.start();

            long floodReadable = 0;
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(broker.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                for (String topic : floodAcked.keySet()) {
                    for (TopicOffset o : admin.examineTopicStats(topic).getOffsetTable().values()) {
                        floodReadable += o.getMaxOffset() - o.getMinOffset();
                    }
                }
            } finally {
                admin.shutdown();
            }
            DefaultLitePullConsumer c = Clients.litePull(broker, "cg-flood-normal", "NormalTopic", "*");
            Set<String> normalRead = new HashSet<>();
            try {
                List<MessageExt> read = new ArrayList<>(Clients.pollAtLeast(c, normalAcked.size(), 30_000));
                read.forEach(m -> normalRead.add(m.getKeys()));
            } finally {
                c.shutdown();
            }
            Set<String> normalLost = new HashSet<>(normalAcked);
            normalLost.removeAll(normalRead);
            long floodAckedCount = floodAcked.values().stream().mapToInt(Integer::intValue).sum();
            figures.put("floodTopicsSent", floodTopics).put("topicsCreated", floodAcked.size())
                .put("floodAcknowledged", floodAckedCount).put("refusedTopicNotExist", refused.get())
                .put("floodOtherErrors", otherFloodErrors.get()).put("topicsNotInTopicsJsonAtKill", notYetPersisted)
                .put("normalAcknowledged", normalAcked.size()).put("normalAcksDuringFlood", normalDuringFlood)
                .put("normalAcksPerSecondDuringFlood", Math.round(normalDuringFlood / floodSeconds))
                .put("normalSystemBusy", normalBusy.get()).put("normalOtherErrors", normalOtherErrors.get())
                .put("lost", normalLost.size() + (floodAckedCount - floodReadable))
                .put("maxOpenFds", maxFds.get()).put("fdLimit", FD_LIMIT).report();
            assertEquals(0, normalBusy.get(), "no SYSTEM_BUSY for the normal producer");
            assertEquals(Set.of(), normalLost, "every acknowledged message of the normal topic is readable");
            assertEquals(floodAckedCount, floodReadable, "every acknowledged flood message is readable after the kill");
            assertTrue(floodAcked.size() > 0, "the flood created topics");
            assertTrue(maxFds.get() < FD_LIMIT / 2, "open files stay bounded by maxOpenConsumeQueueFiles: " + maxFds.get());
        } finally {
            broker.close();
        }
    }
}
