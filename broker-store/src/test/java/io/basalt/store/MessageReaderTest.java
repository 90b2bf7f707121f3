package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.basalt.store.flush.FailStop;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.queue.ReputMessageService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MessageReaderTest {
    private static final ReadLimits IN_MEMORY = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 40, 1L << 40);

    @TempDir
    Path dir;
    private TestCommitLog log;
    private ConsumeQueueStore queues;
    private ReputMessageService reput;
    private final List<Long> offsets = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        log = new TestCommitLog(dir.resolve("commitlog"), 8 * 1024);
        queues = ConsumeQueueStore.open(dir.resolve("consumequeue"), 10 * 20);
        reput = new ReputMessageService(log, queues, null, null, 0, 1000, new FailStop());
    }

    @AfterEach
    void close() throws IOException {
        queues.close();
        log.close();
        assertEquals(0, MappedFile.liveMappings(), "no mapping left behind");
    }

    static BrokerMessage message(String topic, int queueId, String tags, String body) {
        Map<String, String> props = new LinkedHashMap<>();
        if (tags != null) {
            props.put(MessageProperties.TAGS, tags);
        }
        return BrokerMessage.builder().topic(topic).queueId(queueId).body(body.getBytes()).properties(props)
                .bornTimestamp(1).bornHost(new InetSocketAddress("127.0.0.1", 1000))
                .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
    }

    private void put(int n, String tagsEvery) throws IOException {
        for (int i = 0; i < n; i++) {
            String tags = tagsEvery == null ? null : (i % 2 == 0 ? tagsEvery : "other");
            offsets.add(log.append(message("T", 0, tags, "m" + offsets.size())));
        }
        while (reput.doWork() > 0) {
            assertNull(reput.alarm());
        }
    }

    private static String body(SelectedBuffer b) {
        StoredMessage m = MessageRecordDecoder.decode(b.buffer().duplicate());
        return new String(m.body());
    }

    @Test
    void foundReturnsReadOnlySlicesOfTheRecordsAndTheNextBeginOffset() throws IOException {
        put(50, null);
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        try (GetMessageResult r = reader.getMessage("T", 0, 5, 10, MessageFilter.all())) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(10, r.messageCount());
            assertEquals(15, r.nextBeginOffset());
            assertEquals(0, r.minOffset());
            assertEquals(50, r.maxOffset());
            assertFalse(r.suggestPullingFromSlave());
            for (int i = 0; i < 10; i++) {
                SelectedBuffer b = r.messages().get(i);
                assertTrue(b.buffer().isReadOnly());
                assertEquals(offsets.get(5 + i), b.startOffset());
                assertEquals("m" + (5 + i), body(b));
            }
        }
    }

    @Test
    void aPullReturnsAtMost32InMemoryAnd8FromDiskWithTheSlaveHint() throws IOException {
        put(100, null);
        try (GetMessageResult r = new MessageReader(queues, log, IN_MEMORY).getMessage("T", 0, 0, 64, null)) {
            assertEquals(32, r.messageCount());
            assertEquals(32, r.nextBeginOffset());
        }
        ReadLimits tinyMemory = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 40, 1000);
        try (GetMessageResult r = new MessageReader(queues, log, tinyMemory).getMessage("T", 0, 0, 64, null)) {
            assertEquals(8, r.messageCount());
            assertTrue(r.suggestPullingFromSlave());
        }
    }

    @Test
    void aMessageIsInMemoryWhileItIsWithinTheRatioOfMemoryBehindTheLogEnd() throws IOException {
        put(100, null);
        long behindEnd = log.maxOffset() - offsets.get(0);
        // exactly as much memory as offset 0 is behind the end: still in memory; one byte less: on disk
        ReadLimits justEnough = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 100, behindEnd);
        ReadLimits oneByteShort = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 100, behindEnd - 1);
        assertTrue(new MessageReader(queues, log, justEnough).isInMemory("T", 0, 0));
        assertFalse(new MessageReader(queues, log, oneByteShort).isInMemory("T", 0, 0));
        assertTrue(new MessageReader(queues, log, oneByteShort).isInMemory("T", 0, 99), "the newest message");
        ReadLimits ratioZero = new ReadLimits(256 * 1024, 32, 64 * 1024, 8, 0, 1L << 40);
        assertFalse(new MessageReader(queues, log, ratioZero).isInMemory("T", 0, 0));
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        assertFalse(reader.isInMemory("T", 0, 100), "no message at the max offset");
        assertFalse(reader.isInMemory("Nope", 0, 0), "no such queue");
    }

    @Test
    void everyOutOfRangeStatus() throws IOException {
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        GetMessageResult none = reader.getMessage("Nope", 0, 0, 32, null);
        assertEquals(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, none.status());
        queues.findOrCreate("Empty", 0);
        assertEquals(GetMessageStatus.NO_MESSAGE_IN_QUEUE, reader.getMessage("Empty", 0, 0, 32, null).status());

        put(25, null);
        GetMessageResult one = reader.getMessage("T", 0, 25, 32, null);
        assertEquals(GetMessageStatus.OFFSET_OVERFLOW_ONE, one.status());
        assertEquals(25, one.nextBeginOffset());
        GetMessageResult badly = reader.getMessage("T", 0, 40, 32, null);
        assertEquals(GetMessageStatus.OFFSET_OVERFLOW_BADLY, badly.status());
        assertEquals(25, badly.nextBeginOffset());

        queues.deleteFilesBelow(offsets.get(12)); // first queue file (entries 0..9) goes
        GetMessageResult small = reader.getMessage("T", 0, 3, 32, null);
        assertEquals(GetMessageStatus.OFFSET_TOO_SMALL, small.status());
        assertEquals(12, small.nextBeginOffset());
    }

    @Test
    void tagFilterSkipsByHashAndReportsNoMatchedMessage() throws IOException {
        put(20, "TagA"); // even: TagA, odd: other
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        try (GetMessageResult r = reader.getMessage("T", 0, 0, 32, MessageFilter.byTags(Set.of("TagA")))) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(10, r.messageCount());
            for (SelectedBuffer b : r.messages()) {
                int n = Integer.parseInt(body(b).substring(1));
                assertEquals(0, n % 2);
            }
            assertEquals(20, r.nextBeginOffset());
        }
        GetMessageResult nothing = reader.getMessage("T", 0, 0, 32, MessageFilter.byTags(Set.of("TagZ")));
        assertEquals(GetMessageStatus.NO_MATCHED_MESSAGE, nothing.status());
        assertEquals(20, nothing.nextBeginOffset());
        try (GetMessageResult star = reader.getMessage("T", 0, 0, 32, MessageFilter.byTags(Set.of("*")))) {
            assertEquals(20, star.messageCount());
        }
    }

    @Test
    void aFilterThatNeedsPropertiesSeesEachRecordsPropertiesAndDropsTheMisses() throws IOException {
        put(20, "TagA"); // even: TagA, odd: other
        List<String> seen = new ArrayList<>();
        MessageFilter byProperty = new MessageFilter() {
            @Override
            public boolean isMatchedByConsumeQueue(long tagsCode) {
                return true;
            }

            @Override
            public boolean needsProperties() {
                return true;
            }

            @Override
            public boolean isMatchedByCommitLog(ByteBuffer properties) {
                assertTrue(properties.isReadOnly());
                String tags = MessageProperties.find(properties, properties.position(), properties.remaining(), "TAGS");
                seen.add(tags);
                return "other".equals(tags);
            }
        };
        try (GetMessageResult r = reader().getMessage("T", 0, 0, 32, byProperty)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertEquals(10, r.messageCount());
            for (SelectedBuffer b : r.messages()) {
                assertEquals(1, Integer.parseInt(body(b).substring(1)) % 2, "only the odd ones are tagged other");
            }
            assertEquals(20, r.nextBeginOffset());
        }
        assertEquals(20, seen.size(), "every record's properties were offered");
        MessageFilter none = new MessageFilter() {
            @Override
            public boolean isMatchedByConsumeQueue(long tagsCode) {
                return true;
            }

            @Override
            public boolean needsProperties() {
                return true;
            }

            @Override
            public boolean isMatchedByCommitLog(ByteBuffer properties) {
                return false;
            }
        };
        GetMessageResult nothing = reader().getMessage("T", 0, 0, 32, none);
        assertEquals(GetMessageStatus.NO_MATCHED_MESSAGE, nothing.status());
        assertEquals(20, nothing.nextBeginOffset(), "the filtered messages are skipped");
    }

    private MessageReader reader() {
        return new MessageReader(queues, log, IN_MEMORY);
    }

    @Test
    void recordsOfADeletedCommitLogFileAreSkippedOrReportedAsRemoving() throws IOException {
        put(100, "TagA"); // even TagA, odd "other"
        put(300, null);
        assertTrue(log.files.files().size() > 2, "files: " + log.files.files().size());
        MappedFile first = log.files.firstFile();
        assertTrue(log.files.deleteExpiredFilesByTime(Long.MAX_VALUE, 0, 1000, true) > 0);
        assertFalse(Files.exists(first.path()));
        long firstLeft = log.files.minOffset();
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);

        // only TagA entries are wanted, and all of their records are gone
        GetMessageResult removing = reader.getMessage("T", 0, 0, 4, MessageFilter.byTags(Set.of("TagA")));
        assertEquals(GetMessageStatus.MESSAGE_WAS_REMOVING, removing.status());
        assertTrue(removing.nextBeginOffset() > 0);

        // without a filter the pull skips to the first record still in the log
        try (GetMessageResult r = reader.getMessage("T", 0, 0, 4, null)) {
            assertEquals(GetMessageStatus.FOUND, r.status());
            assertTrue(r.messages().get(0).startOffset() >= firstLeft);
            assertEquals(offsets.stream().filter(o -> o >= firstLeft).findFirst().orElseThrow(), r.messages().get(0).startOffset());
        }
    }

    @Test
    void aQueueFileClosedUnderTheReaderGivesOffsetFoundNull() throws IOException {
        put(5, null);
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        queues.find("T", 0).close();
        assertEquals(GetMessageStatus.OFFSET_FOUND_NULL, reader.getMessage("T", 0, 2, 32, null).status());
    }

    @Test
    void aHeldSliceSurvivesDeletionOfItsFileUntilReleased() throws IOException {
        put(400, null);
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        GetMessageResult held = reader.getMessage("T", 0, 0, 2, null);
        assertEquals(GetMessageStatus.FOUND, held.status());
        MappedFile first = log.files.firstFile();
        assertEquals(0, log.files.deleteExpiredFilesByTime(0, 0, 10, true), "a held file is not deleted");
        assertTrue(Files.exists(first.path()));
        assertEquals("m0", body(held.messages().get(0)));
        held.close();
        assertTrue(log.files.deleteExpiredFilesByTime(0, 0, 1000, true) > 0);
        assertFalse(Files.exists(first.path()));
    }

    @Test
    void lookupByCommitLogOffsetReturnsTheWholeRecord() throws IOException {
        put(3, null);
        MessageReader reader = new MessageReader(queues, log, IN_MEMORY);
        try (SelectedBuffer b = reader.selectRecord(offsets.get(2))) {
            assertNotNull(b);
            assertEquals("m2", body(b));
        }
        assertNull(reader.selectRecord(offsets.get(2) + 1));
        assertNull(reader.selectRecord(1L << 40));
        ByteBuffer unused = ByteBuffer.allocate(0);
        assertEquals(0, unused.capacity());
    }
}
