package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.flush.FailStop;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.queue.ReputMessageService;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Bit rot on the read path: a record whose body no longer matches its CRC is reported, never served. */
class CorruptRecordReadTest {
    private static final ReadLimits IN_MEMORY = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 40, 1L << 40);
    private static final int FILE_SIZE = 8 * 1024;

    @TempDir
    Path dir;
    private TestCommitLog log;
    private ConsumeQueueStore queues;
    private final List<Long> offsets = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ListAppender<ILoggingEvent> errors = new ListAppender<>();
    private MessageReader reader;

    @BeforeEach
    void open() throws IOException {
        log = new TestCommitLog(dir.resolve("commitlog"), FILE_SIZE);
        queues = ConsumeQueueStore.open(dir.resolve("consumequeue"), 10 * 20);
        ReputMessageService reput = new ReputMessageService(log, queues, null, null, 0, 1000, new FailStop());
        for (int i = 0; i < 200; i++) {
            offsets.add(log.append(BrokerMessage.builder().topic("T").queueId(0)
                .body(("body-" + i).getBytes(StandardCharsets.US_ASCII)).properties(Map.of())
                .bornTimestamp(1).bornHost(new InetSocketAddress("127.0.0.1", 1000))
                .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build()));
        }
        while (reput.doWork() > 0) {
            assertNull(reput.alarm());
        }
        reader = new MessageReader(queues, log, IN_MEMORY, new CorruptRecordLog(clock::get));
        errors.start();
        ((Logger) LoggerFactory.getLogger(CorruptRecordLog.class)).addAppender(errors);
    }

    @AfterEach
    void close() throws IOException {
        ((Logger) LoggerFactory.getLogger(CorruptRecordLog.class)).detachAppender(errors);
        queues.close();
        log.close();
        assertEquals(0, MappedFile.liveMappings(), "no mapping left behind");
    }

    /** Flips one byte of message {@code i}'s body in its file on disk (the mapping sees the page cache). */
    private Path flipBodyByte(int i) throws IOException {
        long at = offsets.get(i);
        long fileStart = at - at % FILE_SIZE;
        Path file = dir.resolve("commitlog").resolve(String.format("%020d", fileStart));
        byte[] body = ("body-" + i).getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer record = ByteBuffer.allocate(200);
            ch.read(record, at - fileStart);
            int pos = indexOf(record.array(), body);
            assertTrue(pos > 0, "body found in the record");
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (body[body.length - 1] ^ 0x01)}), at - fileStart + pos + body.length - 1);
        }
        return file;
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

    private static String body(SelectedBuffer b) {
        return new String(MessageRecordDecoder.decode(b.buffer().duplicate()).body(), StandardCharsets.US_ASCII);
    }

    @Test
    void aBatchEndsBeforeACorruptRecordWithTheGoodRecordsReadSoFar() throws IOException {
        Path file = flipBodyByte(105);
        try (GetMessageResult r = reader.getMessage("T", 0, 100, 32, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(5, r.messageCount());
            assertEquals(105, r.nextBeginOffset(), "the next pull starts at the bad record");
            for (int i = 0; i < 5; i++) {
                assertEquals("body-" + (100 + i), body(r.messages().get(i)));
            }
        }
        assertEquals(1, reader.corruptRecordsFound());
        assertEquals(1, errors.list.size());
        ILoggingEvent line = errors.list.get(0);
        assertEquals(Level.ERROR, line.getLevel());
        assertTrue(line.getFormattedMessage().contains(file.getFileName().toString()), line.getFormattedMessage());
        assertTrue(line.getFormattedMessage().contains("offset " + offsets.get(105)), line.getFormattedMessage());
        assertTrue(line.getFormattedMessage().contains("body CRC"), line.getFormattedMessage());
    }

    @Test
    void aPullStartingOnACorruptRecordAnswersMessageCorruptAndStaysOnIt() throws IOException {
        flipBodyByte(105);
        for (int attempt = 0; attempt < 3; attempt++) {
            try (GetMessageResult r = reader.getMessage("T", 0, 105, 32, null)) {
                assertEquals(GetMessageStatus.MESSAGE_CORRUPT, r.status());
                assertEquals(0, r.messageCount());
                assertEquals(105, r.nextBeginOffset());
            }
        }
        assertEquals(3, reader.corruptRecordsFound(), "each read of the bad record counts");
        assertEquals(1, errors.list.size(), "the log line is rate-limited");
        clock.addAndGet(CorruptRecordLog.LOG_INTERVAL_MS);
        reader.getMessage("T", 0, 105, 32, null).close();
        assertEquals(2, errors.list.size());
        assertTrue(errors.list.get(1).getFormattedMessage().contains("2 more corrupt reads"),
            errors.list.get(1).getFormattedMessage());
        // an operator's offset reset past it reads on
        try (GetMessageResult r = reader.getMessage("T", 0, 106, 32, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals("body-106", body(r.messages().get(0)));
        }
    }

    @Test
    void intactRecordsAreAllServed() {
        try (GetMessageResult r = reader.getMessage("T", 0, 0, 32, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(32, r.messageCount());
        }
        assertEquals(0, reader.corruptRecordsFound());
        assertTrue(errors.list.isEmpty());
    }

    @Test
    void withCheckCrcOnReadOffACorruptRecordIsServedUnnoticed() throws IOException {
        flipBodyByte(105);
        MessageReader unchecked = new MessageReader(queues, log, IN_MEMORY, new CorruptRecordLog(clock::get), false);
        try (GetMessageResult r = unchecked.getMessage("T", 0, 105, 1, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(1, r.messageCount());
        }
        assertEquals(0, unchecked.corruptRecordsFound());
        assertTrue(errors.list.isEmpty());
    }
}
