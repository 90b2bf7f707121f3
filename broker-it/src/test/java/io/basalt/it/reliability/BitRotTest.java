package io.basalt.it.reliability;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit rot: with the broker stopped, one byte of an old record's body is flipped on disk. After the
 * start (a clean start checks only the last three CommitLog files, so recovery does not see it) a
 * consumer reading from offset 0 gets every acknowledged message except the corrupt one and those
 * behind it in its queue (that queue waits on the bad record); moved past it, as an operator's offset
 * reset does, it gets the rest. Every body is intact, the corrupt one never served; the broker logs the file and offset at ERROR and counts the bad read.
 */
class BitRotTest {
    private static final String TOPIC = "BitRotTopic";
    /** Small files: the record lies in a file older than the last three, which a clean start's recovery checks. */
    private static final int FILE_SIZE = 32 * 1024;

    @TempDir
    Path dir;

    @Test
    void aFlippedBodyByteIsReportedAndNeverServed() throws Exception {
        int messages = Figures.scaled("bitrot.messages", 600);
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("mappedFileSizeCommitLog", Integer.toString(FILE_SIZE),
            "maxMessageSize", Integer.toString(16 * 1024)));
        try {
            broker.start();
            Map<String, String> acked = new HashMap<>();
            List<SendResult> results = new ArrayList<>();
            DefaultMQProducer producer = Clients.producer(broker, "pg-bitrot");
            try {
                for (int i = 0; i < messages; i++) {
                    String body = "bit-rot-body-" + i + "-" + "x".repeat(64);
                    SendResult r = producer.send(new Message(TOPIC, "TagA", "key-" + i, body.getBytes(StandardCharsets.UTF_8)));
                    assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                    acked.put("key-" + i, body);
                    results.add(r);
                }
            } finally {
                producer.shutdown();
            }
            broker.stopGracefully();

            // an old record, far from the tail
            int victim = messages / 10;
            long physicalOffset = MessageDecoder.decodeMessageId(results.get(victim).getOffsetMsgId()).getOffset();
            long fileStart = physicalOffset - physicalOffset % FILE_SIZE;
            String fileName = String.format("%020d", fileStart);
            flipByteInBody(broker.storeDir().resolve("commitlog").resolve(fileName), physicalOffset - fileStart,
                acked.get("key-" + victim).getBytes(StandardCharsets.UTF_8));

            broker.start();
            SendResult bad = results.get(victim);
            // the records behind the bad one in its queue wait until the consumer is moved past it
            int behind = (int) results.stream().filter(r -> r.getMessageQueue().equals(bad.getMessageQueue())
                && r.getQueueOffset() > bad.getQueueOffset()).count();
            DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-bitrot", TOPIC, "*");
            List<MessageExt> read;
            int servedBeforeSkip;
            try {
                read = Clients.pollAtLeast(consumer, messages - 1 - behind, 30_000);
                read.addAll(consumer.poll(500));
                servedBeforeSkip = read.size();
                assertEquals(messages - 1 - behind, servedBeforeSkip, "every good record not behind the bad one");
                // what an operator's offset reset does: move the queue past the bad record
                consumer.seek(bad.getMessageQueue(), bad.getQueueOffset() + 1);
                read.addAll(Clients.pollAtLeast(consumer, behind, 30_000));
            } finally {
                consumer.shutdown();
            }
            Map<String, Integer> seen = new HashMap<>();
            for (MessageExt m : read) {
                seen.merge(m.getKeys(), 1, Integer::sum);
                assertEquals(acked.get(m.getKeys()), new String(m.getBody(), StandardCharsets.UTF_8),
                    "body of " + m.getKeys() + " served intact");
            }
            assertFalse(seen.containsKey("key-" + victim), "the corrupt record is never served");
            long lost = acked.keySet().stream().filter(k -> !k.equals("key-" + victim) && !seen.containsKey(k)).count();
            long duplicated = seen.values().stream().filter(n -> n > 1).count();
            assertEquals(0, lost, () -> "every good record is read; broker log: " + errorLines(broker));
            assertEquals(0, duplicated);

            String line = "Corrupt CommitLog record in file " + fileName + " at offset " + physicalOffset;
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.output().contains(line));
            long counted = corruptReadsMetric(broker);
            assertTrue(counted >= 1, "basalt_corrupt_records_read counts the bad read: " + counted);

            Figures.of("bit-rot").put("acknowledged", messages).put("corrupted", 1).put("served-before-skip", servedBeforeSkip)
                .put("served-after-skip", read.size() - servedBeforeSkip)
                .put("lost", lost).put("duplicated", duplicated).put("corrupt-served", 0)
                .put("corrupt-reads-counted", counted).report();
        } finally {
            broker.close();
        }
    }

    /** Flips the last byte of {@code body} inside the record at {@code recordPosition} of {@code file}. */
    private static void flipByteInBody(Path file, long recordPosition, byte[] body) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer record = ByteBuffer.allocate(1024);
            ch.read(record, recordPosition);
            int at = indexOf(record.array(), body);
            assertTrue(at > 0, "the body lies inside the record");
            long position = recordPosition + at + body.length - 1;
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (body[body.length - 1] ^ 0x20)}), position);
            ch.force(true);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String errorLines(BrokerProcess broker) {
        try {
            return String.join("\n", broker.output().lines().filter(l -> l.contains("ERROR") || l.contains("WARN"))
                .limit(20).toList());
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    private static long corruptReadsMetric(BrokerProcess broker) throws Exception {
        Matcher m = Pattern.compile("(?m)^basalt_corrupt_records_read_total (\\S+)$").matcher(BrokerMemorySampler.metrics(broker));
        assertTrue(m.find(), "metric exported");
        return (long) Double.parseDouble(m.group(1));
    }
}
