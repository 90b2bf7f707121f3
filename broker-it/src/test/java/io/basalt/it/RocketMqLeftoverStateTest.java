package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoreConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A broker opening a store with pending delay-level messages says so in one WARN at every start. */
class RocketMqLeftoverStateTest {
    private static final String WARNING = "WARN  [main] StoreOpeningInspection - 4 schedule messages pending in"
        + " SCHEDULE_TOPIC_XXXX (delay levels [3]";

    @TempDir
    Path dir;

    @Test
    void pendingScheduleMessagesAreWarnedAboutAtEveryStart() throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir, Map.of());
        try {
            // the store as a RocketMQ broker left it: 5 messages of delay level 3, 1 of them delivered
            writeScheduleMessages(broker.storeDir(), 2, 5);
            Files.createDirectories(broker.storeDir().resolve("config"));
            Files.writeString(broker.storeDir().resolve("config/delayOffset.json"), "{\"offsetTable\":{3:1}}");

            broker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.output().contains(WARNING));
            broker.stopGracefully();
            broker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> count(broker.output(), WARNING) == 2);
            assertTrue(broker.output().contains("Basalt does not deliver delay levels yet; they stay stored and are not delivered"));
        } finally {
            broker.close();
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    private static void writeScheduleMessages(Path storeDir, int queueId, int count) throws Exception {
        // the file sizes of BrokerProcess's broker.conf
        MessageStore store = MessageStore.open(StoreConfig.builder().storePathRootDir(storeDir.toString())
            .mappedFileSizeCommitLog(4 * 1024 * 1024).mappedFileSizeConsumeQueue(300_000)
            .maxHashSlotNum(10000).maxIndexNum(40000).build());
        try {
            store.load();
            store.start();
            for (int i = 0; i < count; i++) {
                BrokerMessage msg = BrokerMessage.builder().topic("SCHEDULE_TOPIC_XXXX").queueId(queueId)
                    .body(("delayed-" + i).getBytes(StandardCharsets.UTF_8))
                    .properties(Map.of("DELAY", Integer.toString(queueId + 1), "REAL_TOPIC", "TopicA", "REAL_QID", "0"))
                    .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
                    .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
                assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(msg).join().status());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("SCHEDULE_TOPIC_XXXX", queueId) == count);
        } finally {
            store.shutdown();
        }
    }
}
