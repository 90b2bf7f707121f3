package io.basalt.store.commitlog;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.StoredMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;
import io.basalt.store.mappedfile.StoreFiles;

/**
 * {@code enabledAppendPropCRC}: with it, every record the CommitLog appends ends with RocketMQ's
 * record CRC property, and recovery checks it, so damage to the topic or properties (which the body
 * CRC does not cover) ends the log there. Without it, records are RocketMQ's default format.
 */
class AppendPropCrcTest {
    private static final int FILE_SIZE = 1024 * 1024;
    private static final String TOPIC = "TopicPropCrc";

    @TempDir
    Path dir;

    private StoreConfig config(boolean appendPropCrc) {
        return StoreConfig.builder().storePathRootDir(dir.toString()).mappedFileSizeCommitLog(FILE_SIZE)
            .flushDiskType(FlushDiskType.ASYNC_FLUSH).warmMapedFileEnable(false).maxMessageSize(64 * 1024)
            .enabledAppendPropCRC(appendPropCrc).build();
    }

    private static BrokerMessage message(int i) {
        return BrokerMessage.builder().topic(TOPIC).queueId(0).body(("body-" + i).getBytes(StandardCharsets.UTF_8))
            .properties(Map.of("KEYS", "k" + i)).bornTimestamp(1).build();
    }

    /** Appends three messages (one single, then a batch of two) and shuts down cleanly; returns the record starts. */
    private List<Long> appendThree(boolean appendPropCrc) throws IOException {
        CommitLog log = CommitLog.open(config(appendPropCrc));
        List<Long> starts = new ArrayList<>();
        try {
            log.load();
            log.start();
            AppendMessageResult single = log.asyncPutMessage(message(0)).join().appendResult();
            starts.add(single.physicalOffset());
            AppendMessageResult batch = log.asyncPutMessages(List.of(message(1), message(2))).join().appendResult();
            starts.add(batch.physicalOffset());
            starts.add(batch.physicalOffset() + (batch.wroteBytes() / 2));
        } finally {
            log.shutdown();
        }
        return starts;
    }

    private ByteBuffer commitLogFile() throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(dir.resolve("commitlog").resolve(StoreFiles.fileName(0))));
    }

    @Test
    void theKeyIsOffByDefaultAndKeptByACopy() {
        StoreConfig.Builder b = StoreConfig.builder().storePathRootDir(dir.toString());
        assertFalse(b.build().enabledAppendPropCRC(), "RocketMQ's default: records without the CRC property");
        StoreConfig on = b.enabledAppendPropCRC(true).build();
        assertTrue(on.enabledAppendPropCRC());
        assertTrue(on.toBuilder().build().enabledAppendPropCRC(), "kept by toBuilder");
    }

    @Test
    void withTheKeyEveryAppendedRecordEndsWithTheRecordCrc() throws IOException {
        List<Long> starts = appendThree(true);
        ByteBuffer file = commitLogFile();
        MessageRecordDecoder decoder = new MessageRecordDecoder();
        for (long start : starts) {
            file.position((int) start);
            assertTrue(decoder.check(file.duplicate(), true, true).isOk(), "record at " + start + " carries a valid record CRC");
            StoredMessage stored = MessageRecordDecoder.decode(file);
            assertEquals(10, stored.property(RecordFormat.RECORD_CRC_PROPERTY).length(), "ten digits");
            assertTrue(stored.property("KEYS").startsWith("k"), "the message's own properties stay");
        }
    }

    @Test
    void withoutTheKeyRecordsAreRocketMqsDefaultFormat() throws IOException {
        List<Long> starts = appendThree(false);
        ByteBuffer file = commitLogFile();
        MessageRecordDecoder decoder = new MessageRecordDecoder();
        for (long start : starts) {
            file.position((int) start);
            assertTrue(decoder.check(file.duplicate(), true, false).isOk());
            assertFalse(decoder.check(file.duplicate(), true, true).isOk(), "no record CRC property");
        }
    }

    @Test
    void recoveryEndsTheLogAtARecordWhoseTopicWasDamaged() throws IOException {
        List<Long> starts = appendThree(true);
        damageTopicOfRecordAt(starts.get(2));

        CommitLog refused = CommitLog.open(config(true));
        try {
            // the record was flushed at the clean stop: below the durable point the damage stops the load
            io.basalt.store.CorruptCommitLogException e =
                org.junit.jupiter.api.Assertions.assertThrows(io.basalt.store.CorruptCommitLogException.class, refused::load);
            assertEquals(starts.get(2), e.offset());
        } finally {
            refused.shutdown();
        }
        CommitLog reopened = CommitLog.open(config(true).toBuilder().recoverySkipCorruptRecords(true).build());
        try {
            reopened.load();
            assertEquals(starts.get(2), reopened.maxOffset(), "the damaged record and what follows are cut");
            assertEquals(0, reopened.checkpoint().recordCrcFromOffset(), "required from the store's first record");
        } finally {
            reopened.shutdown();
        }
    }

    @Test
    void withoutTheKeyTheSameDamageGoesUnnoticed() throws IOException {
        List<Long> starts = appendThree(false);
        long end = starts.get(2) + (starts.get(2) - starts.get(1));
        damageTopicOfRecordAt(starts.get(2));

        CommitLog reopened = CommitLog.open(config(false));
        try {
            reopened.load();
            assertEquals(end, reopened.maxOffset(), "the body CRC does not cover the topic");
        } finally {
            reopened.shutdown();
        }
    }

    /** Flips one byte of the topic name inside the record at {@code start} (the body and its CRC stay right). */
    private void damageTopicOfRecordAt(long start) throws IOException {
        Path file = dir.resolve("commitlog").resolve(StoreFiles.fileName(0));
        byte[] bytes = Files.readAllBytes(file);
        byte[] topic = TOPIC.getBytes(StandardCharsets.UTF_8);
        int at = indexOf(bytes, topic, (int) start);
        bytes[at + topic.length - 1] ^= 0x01;
        Files.write(file, bytes);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("topic not found after " + from);
    }
}
