package io.basalt.broker.pop;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;

import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash after a pop and before consumerOffset.json was written again, on a real store: the broker re-opens with
 * the old file, and the checkpoints stored since (waiting in the timer wheel topic, or already in the revive queue)
 * raise the offset again, so the popped messages are not popped a second time.
 */
class PopOffsetRecoveryTest {
    static final String CLUSTER = "DefaultCluster";
    static final String REVIVE = PopConstants.reviveTopic(CLUSTER);
    static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    SubscriptionGroupManager groups;
    ConsumerOffsetManager offsets;
    PopModule pop;
    java.util.concurrent.atomic.AtomicBoolean master = new java.util.concurrent.atomic.AtomicBoolean(true);

    @BeforeEach
    void open() throws Exception {
        start();
        topics.createIfAbsent("T", 1, Perm.READ | Perm.WRITE);
        for (int i = 0; i < 4; i++) {
            put("m" + i);
        }
    }

    /** A broker start: store recovered, metadata read from config/, offsets recovered before any pop. */
    private void start() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system());
        // as the broker does: CKs wait in rmq_sys_wheel_timer until due
        store.addPutTransform(store.timerMessages().putTransform());
        store.timerMessages().setDequeueEnabled(true);
        store.load();
        store.start();
        groups = SubscriptionGroupManager.open(config(), true);
        topics = TopicConfigManager.open(config(), true, 4);
        offsets = ConsumerOffsetManager.open(config());
        pop = new PopModule(store, topics, groups, offsets, new ConsumerFilters(false), HOST, new RetryCounts(),
            master::get, new PopModule.Settings(CLUSTER, "broker-a", 1, 1000));
    }

    private void stop() {
        pop.shutdown();
        store.shutdown();
    }

    @AfterEach
    void close() {
        stop();
    }

    private Path config() {
        return dir.resolve("config");
    }

    @Test
    void checkPointsWaitingInTheTimerRaiseTheLostOffset() throws Exception {
        assertEquals(0, pop.recoverOffsets(config()));
        assertEquals(2, pop(2, 60_000), "m0, m1");
        offsets.persist();
        Path lastWritten = keepOffsetFiles();
        assertEquals(2, pop(2, 60_000), "m2, m3: their CKs wait in the timer wheel topic");
        assertEquals(4, offsets.queryOffset("g", "T", 0));
        assertEquals(0, store.getMaxOffsetInQueue(REVIVE, 0), "none is due yet");

        crashAndRestartWith(lastWritten);
        assertEquals(2, offsets.queryOffset("g", "T", 0), "the file lost the second pop's commit");
        assertEquals(1, pop.recoverOffsets(config()));
        assertEquals(4, offsets.queryOffset("g", "T", 0));
        assertEquals(0, pop(32, 60_000), "m2 and m3 are not popped again");
        assertEquals(4, ConsumerOffsetManager.open(config()).queryOffset("g", "T", 0), "the raise is written");
    }

    @Test
    void aStartThatCannotWriteTheRaisedOffsetsStillServesThemAndKeepsTheOldScanStart() throws Exception {
        popEverythingThenCrashWithTheOffsetsOfBefore();
        // a full disk, as far as consumerOffset.json is concerned: its temporary file cannot be written
        Path blocker = Files.createDirectories(config().resolve("consumerOffset.json.tmp").resolve("blocker"));
        byte[] scanStartBefore = Files.readAllBytes(config().resolve(CheckPointScanStart.FILE_NAME));

        assertEquals(1, pop.recoverOffsets(config()), "the start goes on");
        assertEquals(4, offsets.queryOffset("g", "T", 0), "the raise is served from memory");
        assertEquals(0, pop(32, 60_000), "nothing popped twice");
        assertEquals(-1, ConsumerOffsetManager.open(config()).queryOffset("g", "T", 0), "not written: still no offset");
        assertEquals(new String(scanStartBefore, StandardCharsets.UTF_8),
            Files.readString(config().resolve(CheckPointScanStart.FILE_NAME)),
            "the old scan start stays, so a crash before the next write raises the offsets again");

        Files.delete(blocker);
        Files.delete(blocker.getParent());
        offsets.persist();
        assertEquals(4, ConsumerOffsetManager.open(config()).queryOffset("g", "T", 0), "the next write has it");
    }

    @Test
    void anAutoCreatedGroupLostWithTheFilesStillHasItsOffsetRaised() throws Exception {
        popEverythingThenCrashWithTheOffsetsOfBefore();
        // the group was auto-created by the pop: the background persister had not written it yet either
        Files.deleteIfExists(config().resolve("subscriptionGroup.json"));
        Files.deleteIfExists(config().resolve("subscriptionGroup.json.bak"));
        stop();
        start();
        assertTrue(groups.get("g").isEmpty(), "the group is unknown after the crash");
        assertEquals(1, pop.recoverOffsets(config()));
        assertEquals(4, offsets.queryOffset("g", "T", 0));
    }

    @Test
    void aCheckPointAlreadyInTheReviveQueueRaisesTheLostOffsetToo() throws Exception {
        pop.recoverOffsets(config());
        offsets.persist();
        Path lastWritten = keepOffsetFiles();
        // invisible for 1 s: the CK is due at once (popTime + invisibleTime - 1 s) and stored in the revive queue
        assertEquals(3, pop(3, 1000));
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue(REVIVE, 0) == 1);

        crashAndRestartWith(lastWritten);
        assertEquals(-1, offsets.queryOffset("g", "T", 0));
        assertEquals(1, pop.recoverOffsets(config()));
        assertEquals(3, offsets.queryOffset("g", "T", 0));
    }

    @Test
    void withoutTheScanStartFileEveryStoredCheckPointIsRead() throws Exception {
        popEverythingThenCrashWithTheOffsetsOfBefore();
        Files.delete(config().resolve(CheckPointScanStart.FILE_NAME));
        assertEquals(1, pop.recoverOffsets(config()));
        assertEquals(4, offsets.queryOffset("g", "T", 0));
        assertTrue(Files.exists(config().resolve(CheckPointScanStart.FILE_NAME)), "kept from now on");
    }

    @Test
    void anUnreadableScanStartFileMeansEveryStoredCheckPointIsRead() throws Exception {
        popEverythingThenCrashWithTheOffsetsOfBefore();
        Files.writeString(config().resolve(CheckPointScanStart.FILE_NAME), "{not json");
        assertEquals(1, pop.recoverOffsets(config()));
        assertEquals(4, offsets.queryOffset("g", "T", 0));
    }

    @Test
    void offsetsAheadOfTheCheckPointsAreLeftAlone() throws Exception {
        pop.recoverOffsets(config());
        assertEquals(2, pop(2, 60_000));
        offsets.commitOffset(null, "g", "T", 0, 3);
        offsets.persist();
        stop();
        start();
        assertEquals(0, pop.recoverOffsets(config()));
        assertEquals(3, offsets.queryOffset("g", "T", 0));
    }

    @Test
    void aSlaveKeepsTheScanStartItWroteAsMaster() throws Exception {
        pop.recoverOffsets(config());
        Path file = config().resolve(CheckPointScanStart.FILE_NAME);
        String asMaster = Files.readString(file);
        assertEquals(4, pop(4, 60_000));
        master.set(false);
        offsets.persist();
        assertEquals(asMaster, Files.readString(file), "a slave's offsets are older than its queue ends");
        master.set(true);
        // the pops' CKs reach the wheel topic's queue asynchronously: the scan start moves once they are indexed
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            offsets.persist();
            return !asMaster.equals(Files.readString(file));
        });
    }

    @Test
    void theScanStartStaysBeforeACheckPointWhoseCommitIsStillOpen() throws Exception {
        PopCommitWindow window = new PopCommitWindow(store, REVIVE, 1);
        PopCommitWindow.Ticket open = window.begin(0);
        long wheelEnd = store.getMaxOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0);
        assertEquals(2, pop(2, 60_000));
        await().atMost(Duration.ofSeconds(10))
            .until(() -> store.getMaxOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0) > wheelEnd);
        assertEquals(wheelEnd, window.scanStart().wheelTimerOffset(), "a pop between its CK and its commit");
        window.end(open);
        assertEquals(store.getMaxOffsetInQueue(PopConstants.WHEEL_TIMER_TOPIC, 0), window.scanStart().wheelTimerOffset());
    }

    /** consumerOffset.json and the scan start as last written (what a kill -9 leaves). */
    private Path keepOffsetFiles() throws Exception {
        Path kept = dir.resolve("kept");
        Files.createDirectories(kept);
        for (String name : new String[] {"consumerOffset.json", CheckPointScanStart.FILE_NAME}) {
            Files.copy(config().resolve(name), kept.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
        return kept;
    }

    /** Offsets written with nothing popped; all four messages popped; a crash that loses the pop's offset write. */
    private void popEverythingThenCrashWithTheOffsetsOfBefore() throws Exception {
        pop.recoverOffsets(config());
        offsets.persist();
        Path lastWritten = keepOffsetFiles();
        assertEquals(4, pop(4, 60_000));
        crashAndRestartWith(lastWritten);
    }

    private void crashAndRestartWith(Path kept) throws Exception {
        stop();
        for (String name : new String[] {"consumerOffset.json", CheckPointScanStart.FILE_NAME}) {
            Files.copy(kept.resolve(name), config().resolve(name), StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(config().resolve(name + ".bak"));
        }
        start();
    }

    private int pop(int max, long invisibleTime) throws Exception {
        PopResult result = pop.service().pop(new PopRequest("g", "T", 0, max, invisibleTime, 0,
            PopRequest.INIT_MODE_MIN, "TAG", "*", false, null)).get();
        if (result.outcome().code() == ResponseCode.POLLING_TIMEOUT) {
            return 0;
        }
        assertEquals(ResponseCode.SUCCESS, result.outcome().code(), result.outcome().toString());
        return result.messages().size();
    }

    private void put(String body) throws Exception {
        long before = store.getMaxOffsetInQueue("T", 0);
        BrokerMessage m = BrokerMessage.builder().topic("T").queueId(0).body(body.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(Map.of(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
                "ID-" + body))).bornTimestamp(1).bornHost(HOST).storeHost(HOST).build();
        store.asyncPutMessage(m).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == before + 1);
    }
}
