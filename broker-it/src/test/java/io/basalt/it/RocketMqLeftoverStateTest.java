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
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store a RocketMQ broker left with pending delay-level messages: the schedule service delivers them from the
 * offset config/delayOffset.json says (the one already delivered is not delivered again), says nothing about them
 * as unserved state any more, and after a restart delivers nothing twice.
 */
class RocketMqLeftoverStateTest {
    private static final String OLD_WARNING = "schedule messages pending in SCHEDULE_TOPIC_XXXX";

    @TempDir
    Path dir;

    @Test
    void pendingScheduleMessagesOfARocketMqStoreAreDeliveredOnce() throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir, Map.of("messageDelayLevel", "1s 2s 3s"));
        try {
            // the store as a RocketMQ broker left it: 5 messages of delay level 3, 1 of them delivered
            writeScheduleMessages(broker.storeDir(), 2, 5);
            Files.createDirectories(broker.storeDir().resolve("config"));
            Files.writeString(broker.storeDir().resolve("config/delayOffset.json"), "{\"offsetTable\":{3:1}}");

            broker.start();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                Files.readString(broker.storeDir().resolve("config/delayOffset.json")).contains("3:5"));
            broker.stopGracefully();
            broker.start();
            DefaultLitePullConsumer consumer = Clients.litePull(broker, "cg-leftover", "TopicA", "*");
            try {
                List<MessageExt> got = Clients.pollAtLeast(consumer, 4, 20_000);
                assertEquals(List.of("delayed-1", "delayed-2", "delayed-3", "delayed-4"),
                    got.stream().map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList());
                assertEquals(List.of(), consumer.poll(1500), "nothing delivered twice after the restart");
            } finally {
                consumer.shutdown();
            }
            assertTrue(!broker.output().contains(OLD_WARNING), "no longer reported as unserved state");
        } finally {
            broker.close();
        }
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
