package io.basalt.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatcher writes a SCHEDULE_TOPIC_XXXX record's deliver time (store time + its level's delay, the level
 * clamped to the maximum) as its consume-queue tagsCode, live and when the queues are rebuilt from the CommitLog;
 * every other record keeps its TAGS hash. {@link MessageStore#readQueueEntries} returns the entries.
 */
class ScheduleTagsCodeTest {
    @TempDir
    Path root;
    private MessageStore store;

    @AfterEach
    void shutdown() {
        StoreTestSupport.shutdownAndCheckMappings(store);
    }

    private void start() throws IOException {
        StoreConfig config = StoreConfig.builder().storePathRootDir(root.toString())
            .mappedFileSizeCommitLog(StoreTestSupport.COMMIT_LOG_FILE_SIZE)
            .mappedFileSizeConsumeQueue(StoreTestSupport.CONSUME_QUEUE_FILE_SIZE).warmMapedFileEnable(false)
            .maxHashSlotNum(64).maxIndexNum(400).messageDelayLevel("1s 2s 3s").build();
        store = MessageStore.open(config);
        store.load();
        store.start();
    }

    private static BrokerMessage message(String topic, int queueId, String delay) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, "tagA");
        if (delay != null) {
            props.put(MessageProperties.DELAY_TIME_LEVEL, delay);
        }
        return BrokerMessage.builder().topic(topic).queueId(queueId).body("m".getBytes()).properties(props)
            .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
            .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
    }

    private long put(BrokerMessage m) {
        PutMessageResult r = store.asyncPutMessage(m).join();
        assertEquals(PutMessageStatus.PUT_OK, r.status());
        return r.appendResult().storeTimestamp();
    }

    @Test
    void scheduleRecordsGetTheirDeliverTimeLiveAndAfterARebuild() throws IOException {
        start();
        long level2 = put(message(DelayLevels.SCHEDULE_TOPIC, 1, "2"));
        long aboveMax = put(message(DelayLevels.SCHEDULE_TOPIC, 2, "9"));
        long notANumber = put(message(DelayLevels.SCHEDULE_TOPIC, 2, "x"));
        put(message(DelayLevels.SCHEDULE_TOPIC, 0, null));
        put(message("T", 0, "2"));
        long end = store.getMaxPhyOffset();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getReputFromOffset() == end);

        List<Long> expected = List.of(level2 + 2000, aboveMax + 3000, notANumber + 1000, (long) "tagA".hashCode(),
            (long) "tagA".hashCode());
        assertEquals(expected, tagsCodes());

        store.shutdown();
        store = null;
        try (Stream<Path> s = Files.walk(root.resolve("consumequeue"))) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        start();
        assertEquals(expected, tagsCodes(), "the queues rebuilt from the CommitLog have the same deliver times");
    }

    @Test
    void readQueueEntriesReturnsOffsetsPositionsAndSizesFromAnOffset() throws IOException {
        start();
        for (int i = 0; i < 5; i++) {
            put(message("T", 0, null));
        }
        long end = store.getMaxPhyOffset();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getReputFromOffset() == end);
        List<QueueEntry> entries = store.readQueueEntries("T", 0, 2, 10);
        assertEquals(3, entries.size());
        assertEquals(2, entries.get(0).queueOffset());
        assertEquals(store.getCommitLogOffsetInQueue("T", 0, 2), entries.get(0).physicalOffset());
        assertEquals(entries.get(0).physicalOffset() + entries.get(0).size(), entries.get(1).physicalOffset());
        assertEquals(List.of(), store.readQueueEntries("T", 0, 5, 10), "at the end");
        assertEquals(List.of(), store.readQueueEntries("T", 1, 0, 10), "no such queue");
    }

    private List<Long> tagsCodes() {
        return List.of(
            store.readQueueEntries(DelayLevels.SCHEDULE_TOPIC, 1, 0, 1).get(0).tagsCode(),
            store.readQueueEntries(DelayLevels.SCHEDULE_TOPIC, 2, 0, 2).get(0).tagsCode(),
            store.readQueueEntries(DelayLevels.SCHEDULE_TOPIC, 2, 0, 2).get(1).tagsCode(),
            store.readQueueEntries(DelayLevels.SCHEDULE_TOPIC, 0, 0, 1).get(0).tagsCode(),
            store.readQueueEntries("T", 0, 0, 1).get(0).tagsCode());
    }
}
