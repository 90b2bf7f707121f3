package io.basalt.broker.schedule;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform.Decision;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoredMessage;

/**
 * The schedule service on a real store: a failed put is retried at the same offset while later messages are
 * delivered, the level's offset never passes the undelivered one, nothing is lost or doubled; stored offsets
 * outside their queue are corrected and written at once at start.
 */
class ScheduleMessageServiceTest {
    @TempDir
    Path dir;
    private MessageStore store;
    private ScheduleMessageService service;

    @AfterEach
    void close() {
        if (service != null) {
            service.shutdown();
        }
        if (store != null) {
            store.shutdown();
        }
    }

    private void openStore() throws IOException {
        store = MessageStore.open(StoreConfig.builder().storePathRootDir(dir.toString()).mappedFileSizeCommitLog(1 << 20)
            .mappedFileSizeConsumeQueue(300_000).warmMapedFileEnable(false).maxHashSlotNum(64).maxIndexNum(400)
            .messageDelayLevel("1s 2s").build());
        store.addPutTransform(new DelayLevelTransform(DelayLevels.parse("1s 2s")));
    }

    private ScheduleMessageService service() {
        return new ScheduleMessageService(store, DelayLevels.parse("1s 2s"), new DelayOffsetFile(dir.resolve("config")),
            new ScheduleSettings(10_000, 200, 16), () -> true, System::currentTimeMillis);
    }

    private void sendDelayed(String body, int level) {
        BrokerMessage m = BrokerMessage.builder().topic("T").queueId(0).body(body.getBytes(StandardCharsets.UTF_8))
            .propertiesString("DELAY\u0001" + level + "\u0002").bornTimestamp(System.currentTimeMillis())
            .bornHost(new InetSocketAddress("127.0.0.1", 4000)).storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(m).join().status());
    }

    private List<String> delivered() {
        List<String> bodies = new ArrayList<>();
        for (long o = 0; o < store.getMaxOffsetInQueue("T", 0); o++) {
            StoredMessage m = store.lookMessageByOffset(store.getCommitLogOffsetInQueue("T", 0, o));
            bodies.add(new String(m.body(), StandardCharsets.UTF_8));
        }
        return bodies;
    }

    @Test
    void aFailedPutIsRetriedAtTheSameOffsetAndTheOffsetWaitsForIt() throws Exception {
        openStore();
        AtomicBoolean refuseM0 = new AtomicBoolean(true);
        AtomicInteger refusals = new AtomicInteger();
        store.addPutTransform(m -> {
            if (m.dueRedelivery() && refuseM0.get() && "m0".equals(new String(m.body(), StandardCharsets.UTF_8))) {
                refusals.incrementAndGet();
                return Decision.refuse(PutMessageStatus.SERVICE_NOT_AVAILABLE, "disk full, say");
            }
            return Decision.append(m);
        });
        store.load();
        store.start();
        for (int i = 0; i < 5; i++) {
            sendDelayed("m" + i, 1);
        }
        service = service();
        service.start();

        await().atMost(ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 4 && refusals.get() >= 2);
        assertEquals(List.of("m1", "m2", "m3", "m4"), delivered(), "the others are not held up");
        assertEquals(0, level1Offset(), "the offset stays at the message not yet delivered");

        refuseM0.set(false);
        await().atMost(ofSeconds(10)).until(() -> level1Offset() == 5);
        assertEquals(List.of("m1", "m2", "m3", "m4", "m0"), delivered(), "m0 delivered once, nothing twice");
        ScheduleMessageService.LevelStatus level1 = service.status().get(0);
        assertEquals(5, level1.delivered());
        assertTrue(level1.putFailures() >= 2, level1.toString());
        assertEquals(0, level1.skipped());
        assertEquals(0, level1.backlog());
        assertEquals(Map.of("scheduleMessageOffset_1", "5,5"), service.runtimeInfo());
        await().atMost(ofSeconds(5)).until(() -> Files.readString(dir.resolve("config/delayOffset.json")).contains("1:5"));
    }

    @Test
    void offsetsOutsideTheirQueuesAreCorrectedAndWrittenAtStart() throws Exception {
        openStore();
        store.load();
        store.start();
        for (int i = 0; i < 2; i++) {
            sendDelayed("later" + i, 2);
        }
        await().atMost(ofSeconds(5)).until(() -> store.getMaxOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, 1) == 2);
        Files.createDirectories(dir.resolve("config"));
        Files.writeString(dir.resolve("config/delayOffset.json"), "{\"offsetTable\":{1:50,2:9}}");
        service = service();
        service.start();
        String written = Files.readString(dir.resolve("config/delayOffset.json"));
        assertTrue(written.contains("\"offsetTable\":{1:0,2:2"), written);
    }

    private long level1Offset() {
        return service.status().get(0).offset();
    }
}
