package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.ha.autoswitch.AutoSwitchClient;
import io.basalt.ha.autoswitch.SyncStateSetTracker;
import io.basalt.ha.master.HAService;
import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;

/**
 * Controller-mode replication over real sockets on loopback: a Basalt master in controller mode
 * ({@link HAService#controllerMode}) and Basalt's AutoSwitch client, both speaking RocketMQ 5's
 * AutoSwitch wire; the SyncStateSet, confirmOffset and the controller-mode write path.
 */
class AutoSwitchReplicationTest {
    private static final long MASTER_ID = 1;
    private static final long SLAVE_ID = 2;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private HANode node(String name) throws IOException {
        HANode n = HANode.open(dir.resolve(name), FlushDiskType.ASYNC_FLUSH);
        open.add(n);
        return n;
    }

    private HAService master(HANode node, HAConfig config, long id) throws IOException {
        HAService m = HAService.controllerMode(node.store, node.epochs, config, new Peer(id, "127.0.0.1:10911"));
        m.start();
        open.add(m::shutdown);
        return m;
    }

    private AutoSwitchClient slave(HANode node, HAConfig config, long id, HAService master) {
        AutoSwitchClient c = new AutoSwitchClient(node.store, node.epochs, config, new Peer(id, "127.0.0.1:10921"),
            new InetSocketAddress("127.0.0.1", master.localPort()), "127.0.0.1:10911");
        c.start();
        open.add(c::shutdown);
        return c;
    }

    private static void awaitCaughtUp(HANode master, HANode slave) {
        await().atMost(ofSeconds(60)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
    }

    private static void assertSameLog(HANode master, HANode slave, long from) throws IOException {
        long max = master.store.getMaxPhyOffset();
        assertEquals(max, slave.store.getMaxPhyOffset());
        assertArrayEquals(master.commitLogBytes(from, max), slave.commitLogBytes(from, max));
    }

    private static PutMessageResult putNoWait(HANode node, String topic, int i) {
        return node.store.asyncPutMessage(HANode.message(topic, i % 4, topic + "-" + i, 512, false)).join();
    }

    @Test
    void basaltSlaveFollowsBasaltMasterOnTheAutoSwitchWire() throws Exception {
        HAConfig config = HANode.config();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        m.putMany("TopicA", 0, 300, 1024);
        AutoSwitchClient client = slave(s, config, SLAVE_ID, master);
        awaitCaughtUp(m, s);
        m.putMany("TopicA", 300, 3000, 1024); // crosses CommitLog files while streaming
        awaitCaughtUp(m, s);
        assertSameLog(m, s, 0);
        assertEquals(m.epochs.entries(), s.epochs.entries(), "the slave records the master's epochs from the frames");
        assertEquals(AutoSwitchClient.State.TRANSFER, client.state());
        await().atMost(ofSeconds(30)).until(() -> master.slaves().size() == 1
            && master.slaves().get(0).ackOffset() == m.store.getMaxPhyOffset());
        assertEquals(SLAVE_ID, master.slaves().get(0).brokerId());
        assertEquals("AUTOSWITCH", master.slaves().get(0).protocol());
    }

    @Test
    void divergentTailIsTruncatedOnReconnectAfterAnEpochChange() throws Exception {
        HAConfig config = HANode.config();
        HANode a = node("a");
        HANode b = node("b");
        HAService masterA = master(a, config, MASTER_ID);
        AutoSwitchClient clientB = slave(b, config, SLAVE_ID, masterA);
        a.putMany("TopicA", 0, 500, 1024);
        awaitCaughtUp(a, b);
        long common = b.store.getMaxPhyOffset();
        clientB.shutdown();
        // A goes on alone: a tail B never got
        a.putMany("TopicA", 500, 200, 1024);
        long aEnd = a.store.getMaxPhyOffset();
        assertTrue(aEnd > common);
        masterA.shutdown();
        // B is elected for epoch 2 at its end and writes; A returns as its slave
        b.store.replicatedLog().alignQueueOffsetsWithLog();
        b.epochs.startEpoch(b.store.getMaxPhyOffset());
        HAService masterB = master(b, config, SLAVE_ID);
        b.putMany("TopicB", 0, 100, 700);
        AutoSwitchClient clientA = slave(a, config, MASTER_ID, masterB);
        awaitCaughtUp(b, a);
        assertSameLog(b, a, 0);
        assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, common)), a.epochs.entries());
        assertEquals(AutoSwitchClient.State.TRANSFER, clientA.state());
    }

    @Test
    void noConsistentPointMeansNoSync() throws Exception {
        HAConfig config = HANode.config();
        HANode a = node("a");
        HANode b = node("b");
        // b's only generation is one a never had: nothing of a's log can be trusted against it
        b.epochs.replaceWith(List.of(new EpochFile.Entry(3, 0)));
        HAService masterB = master(b, config, MASTER_ID);
        b.putMany("TopicB", 0, 50, 1024);
        a.epochs.replaceWith(List.of(new EpochFile.Entry(1, 0)));
        a.putMany("TopicA", 0, 20, 1024);
        long aEnd = a.store.getMaxPhyOffset();
        byte[] before = a.commitLogBytes(0, aEnd);
        AutoSwitchClient clientA = slave(a, config, SLAVE_ID, masterB);
        await().atMost(ofSeconds(30)).until(() -> clientA.handshakes() >= 2);
        assertTrue(clientA.lastRefusal().contains("no consistent point"), clientA.lastRefusal());
        assertEquals(aEnd, a.store.getMaxPhyOffset(), "nothing truncated, nothing appended");
        assertArrayEquals(before, a.commitLogBytes(0, aEnd));
        assertTrue(masterB.slaves().isEmpty());
    }

    @Test
    void slaveJoinsTheSyncStateSetWhenCaughtUpAndLeavesWhenItsConnectionCloses() throws Exception {
        HAConfig config = HANode.config();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        SyncStateSetTracker set = master.syncStateSet();
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        set.onProposal(proposals::add);
        m.putMany("TopicA", 0, 200, 1024);
        AutoSwitchClient client = slave(s, config, SLAVE_ID, master);
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
        set.adopt(Set.of(MASTER_ID, SLAVE_ID));
        assertEquals(Set.of(MASTER_ID, SLAVE_ID), set.effective());
        client.shutdown();
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID)));
        assertEquals(Set.of(MASTER_ID, SLAVE_ID), set.effective(), "the union while the Controller has not answered");
        set.adopt(Set.of(MASTER_ID));
        assertEquals(Set.of(MASTER_ID), set.effective());
    }

    @Test
    void asyncLearnerNeverJoins() throws Exception {
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, HANode.config(), MASTER_ID);
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        master.syncStateSet().onProposal(proposals::add);
        m.putMany("TopicA", 0, 100, 1024);
        slave(s, HANode.config().toBuilder().asyncLearner(true).build(), SLAVE_ID, master);
        awaitCaughtUp(m, s);
        await().atMost(ofSeconds(30)).until(() -> !master.slaves().isEmpty()
            && master.slaves().get(0).ackOffset() == m.store.getMaxPhyOffset());
        assertTrue(proposals.isEmpty(), proposals.toString());
    }

    @Test
    void consumersSeeOnlyWhatEverySyncStateSetMemberHoldsWithAllAck() throws Exception {
        HAConfig config = HANode.config().toBuilder().allAckInSyncStateSet(true).build();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        master.syncStateSet().onProposal(proposals::add);
        m.putMany("TopicA", 0, 50, 1024);
        AutoSwitchClient client = slave(s, config, SLAVE_ID, master);
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
        master.syncStateSet().adopt(Set.of(MASTER_ID, SLAVE_ID));
        awaitCaughtUp(m, s);
        await().atMost(ofSeconds(30)).until(() -> m.store.replicatedLog().dispatchedOffset() == m.store.getMaxPhyOffset());
        long confirmed = m.store.getMaxPhyOffset();
        client.shutdown();
        // the member is gone but still in the set in force: nothing more is confirmed, so nothing more is dispatched
        for (int i = 0; i < 20; i++) {
            assertEquals(PutMessageStatus.PUT_OK, putNoWait(m, "TopicA", 50 + i).status());
        }
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID)));
        assertEquals(confirmed, master.confirmOffset());
        assertEquals(confirmed, m.store.replicatedLog().dispatchedOffset(), "consumers do not see unconfirmed messages");
        assertEquals(13, m.store.getMaxOffsetInQueue("TopicA", 0), "queue 0 holds only the 13 confirmed messages of the first 50");
        // the slave comes back, catches up, and what it holds becomes visible
        slave(s, config, SLAVE_ID, master);
        awaitCaughtUp(m, s);
        await().atMost(ofSeconds(30)).until(() -> m.store.replicatedLog().dispatchedOffset() == m.store.getMaxPhyOffset());
        assertEquals(m.store.getMaxPhyOffset(), master.confirmOffset());
    }

    @Test
    void allAckPutWaitsForEveryMember() throws Exception {
        HAConfig config = HANode.config().toBuilder().allAckInSyncStateSet(true).slaveTimeoutMs(500).build();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        master.syncStateSet().onProposal(proposals::add);
        m.putMany("TopicA", 0, 10, 1024);
        AutoSwitchClient client = slave(s, config, SLAVE_ID, master);
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
        master.syncStateSet().adopt(Set.of(MASTER_ID, SLAVE_ID));
        PutMessageResult acked = m.put("TopicA", 10, 1024);
        assertEquals(PutMessageStatus.PUT_OK, acked.status());
        assertTrue(s.store.getMaxPhyOffset() >= acked.appendResult().nextOffset(), "acknowledged only once the slave held it");
        client.shutdown();
        // still a member (the Controller has not shrunk the set): the put waits for it and times out
        PutMessageResult timedOut = m.put("TopicA", 11, 1024);
        assertEquals(PutMessageStatus.FLUSH_SLAVE_TIMEOUT, timedOut.status());
    }

    @Test
    void inSyncReplicasOfOneWaitsForNoSlave() throws Exception {
        HAConfig config = HANode.config(); // inSyncReplicas=1, allAckInSyncStateSet=false: RocketMQ's defaults
        HANode m = node("m");
        HAService master = master(m, config, MASTER_ID);
        master.syncStateSet().adopt(Set.of(MASTER_ID, SLAVE_ID)); // a member that is not even connected
        CompletableFuture<PutMessageResult> put = m.store.asyncPutMessage(HANode.message("TopicA", 0, "x", 100, true));
        assertEquals(PutMessageStatus.PUT_OK, put.join().status());
    }

    @Test
    void minInSyncReplicasRefusesPutsWhileTheSetIsTooSmall() throws Exception {
        HAConfig config = HANode.config().toBuilder().minInSyncReplicas(2).build();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        long before = m.store.getMaxPhyOffset();
        PutMessageResult refused = m.put("TopicA", 0, 1024);
        assertEquals(PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH, refused.status());
        assertEquals(before, m.store.getMaxPhyOffset(), "nothing written");
        slave(s, config, SLAVE_ID, master);
        await().atMost(ofSeconds(30)).until(() -> master.syncStateSet().effective().size() == 2);
        assertEquals(PutMessageStatus.PUT_OK, m.put("TopicA", 1, 1024).status());
    }

    @Test
    void aHeldConfirmOffsetShowsConsumersNothingMore() throws Exception {
        HAConfig config = HANode.config().toBuilder().allAckInSyncStateSet(true).build();
        HANode m = node("m");
        HANode s = node("s");
        HAService master = master(m, config, MASTER_ID);
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        master.syncStateSet().onProposal(proposals::add);
        slave(s, config, SLAVE_ID, master);
        await().atMost(ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
        master.syncStateSet().adopt(Set.of(MASTER_ID, SLAVE_ID));
        m.putMany("TopicA", 0, 10, 1024);
        await().atMost(ofSeconds(30)).until(() -> m.store.replicatedLog().dispatchedOffset() == m.store.getMaxPhyOffset());
        long held = m.store.getMaxPhyOffset();
        master.holdConfirmOffset("the Controller is out of reach");
        for (int i = 0; i < 10; i++) {
            assertEquals(PutMessageStatus.PUT_OK, putNoWait(m, "TopicA", 10 + i).status());
        }
        awaitCaughtUp(m, s);
        await().atMost(ofSeconds(30)).until(() -> master.slaves().get(0).ackOffset() == m.store.getMaxPhyOffset());
        assertEquals(held, master.confirmOffset(), "the slave holds it all, yet nothing more is confirmed");
        assertEquals(held, m.store.replicatedLog().dispatchedOffset());
        master.releaseConfirmOffset();
        await().atMost(ofSeconds(30)).until(() -> m.store.replicatedLog().dispatchedOffset() == m.store.getMaxPhyOffset());
    }

    @Test
    void slaveDispatchesOnlyUpToTheConfirmOffsetItReceivesWithAllAck() throws Exception {
        HAConfig config = HANode.config().toBuilder().allAckInSyncStateSet(true).build();
        HANode m = node("m");
        HANode s2 = node("s2");
        HANode s3 = node("s3");
        HAService master = master(m, config, MASTER_ID);
        List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
        master.syncStateSet().onProposal(proposals::add);
        m.putMany("TopicA", 0, 20, 1024);
        AutoSwitchClient c2 = slave(s2, config, SLAVE_ID, master);
        AutoSwitchClient c3 = slave(s3, config, 3, master);
        await().atMost(ofSeconds(30)).until(() -> proposals.stream().anyMatch(p -> p.contains(SLAVE_ID))
            && proposals.stream().anyMatch(p -> p.contains(3L)));
        master.syncStateSet().adopt(Set.of(MASTER_ID, SLAVE_ID, 3L));
        awaitCaughtUp(m, s2);
        awaitCaughtUp(m, s3);
        long confirmed = m.store.getMaxPhyOffset();
        await().atMost(ofSeconds(30)).until(() -> c2.confirmOffset() == confirmed
            && s2.store.replicatedLog().dispatchedOffset() == confirmed);
        c3.shutdown();
        for (int i = 0; i < 10; i++) {
            assertEquals(PutMessageStatus.PUT_OK, putNoWait(m, "TopicA", 20 + i).status());
        }
        awaitCaughtUp(m, s2);
        await().atMost(ofSeconds(30)).until(() -> master.slaves().size() == 1
            && master.slaves().get(0).ackOffset() == m.store.getMaxPhyOffset());
        assertEquals(confirmed, c2.confirmOffset(), "member 3 holds less, so nothing more is confirmed");
        assertEquals(confirmed, s2.store.replicatedLog().dispatchedOffset(), "the slave's consumers see no more either");
    }
}
