package io.basalt.store.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExtBrokerInner;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.config.BrokerRole;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAService;
import org.apache.rocketmq.store.stats.BrokerStatsManager;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.ha.EpochFile;
import io.basalt.ha.HAConfig;
import io.basalt.ha.Peer;
import io.basalt.ha.autoswitch.AutoSwitchClient;
import io.basalt.ha.master.HAService;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;

/**
 * RocketMQ 5.2.0's own AutoSwitch HA (its {@code DefaultMessageStore} in controller mode, with
 * {@code AutoSwitchHAService}) against Basalt's, in this JVM over loopback: a RocketMQ master with a
 * Basalt slave, and a Basalt master with a RocketMQ slave. Each slave's CommitLog must be byte for
 * byte the master's, its epoch history the master's, and each master must see the slave catch up
 * (its SyncStateSet grows).
 */
@LeakCheckExtension.AllowThreads(value = "ThreadUtils-StatisticsManagerCleaner",
    because = "RocketMQ 5.2.0's BrokerStatsManager starts a StatisticsManager whose cleaner thread nothing can stop:"
        + " the executor is private and neither has a shutdown for it")
class AutoSwitchInteropTest {
    private static final int FILE_SIZE = 64 * 1024;
    private static final String TOPIC = "InteropTopic";
    private static final long MASTER_ID = 1;
    private static final long SLAVE_ID = 2;

    @TempDir
    Path root;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private DefaultMessageStore openRocketMq(Path dir, BrokerRole role, int haPort) throws Exception {
        MessageStoreConfig config = new MessageStoreConfig();
        config.setStorePathRootDir(dir.toString());
        config.setStorePathCommitLog(dir.resolve("commitlog").toString());
        config.setStorePathEpochFile(dir.resolve("epochFileCheckpoint").toString());
        config.setMappedFileSizeCommitLog(FILE_SIZE);
        config.setMappedFileSizeConsumeQueue(100 * 20);
        config.setMaxHashSlotNum(64);
        config.setMaxIndexNum(400);
        config.setFlushDiskType(org.apache.rocketmq.store.config.FlushDiskType.ASYNC_FLUSH);
        config.setBrokerRole(role);
        config.setHaListenPort(haPort);
        config.setHaSendHeartbeatInterval(500);
        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setEnableControllerMode(true);
        DefaultMessageStore store = new DefaultMessageStore(config, new BrokerStatsManager("interop", true), null,
            brokerConfig, new ConcurrentHashMap<>());
        assertTrue(store.load(), "RocketMQ loads the store");
        store.start();
        return store;
    }

    private static HAConfig basaltHa(int port) {
        return HAConfig.builder().haListenPort(port).haSendHeartbeatInterval(500).haHousekeepingInterval(5000)
            .reconnectIntervalMs(100).build();
    }

    private MessageStore openBasalt(Path dir) throws IOException {
        MessageStore store = MessageStore.open(StoreConfig.builder().storePathRootDir(dir.toString())
            .mappedFileSizeCommitLog(FILE_SIZE).mappedFileSizeConsumeQueue(100 * 20).warmMapedFileEnable(false)
            .maxHashSlotNum(64).maxIndexNum(400).build());
        store.load();
        store.start();
        return store;
    }

    private static void putRocketMq(DefaultMessageStore store, int from, int count) {
        for (int i = from; i < from + count; i++) {
            MessageExtBrokerInner m = new MessageExtBrokerInner();
            m.setTopic(TOPIC);
            m.setQueueId(i % 3);
            m.setBody(("body-" + i + "-".repeat(300)).getBytes());
            m.setTags("Tag" + (i % 2));
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "UNIQ" + i);
            m.setTagsCode(MessageExtBrokerInner.tagsString2tagsCode(m.getTags()));
            m.setBornTimestamp(System.currentTimeMillis());
            m.setBornHost(new InetSocketAddress("127.0.0.1", 40000));
            m.setStoreHost(new InetSocketAddress("127.0.0.1", 10911));
            m.setPropertiesString(MessageDecoder.messageProperties2String(m.getProperties()));
            assertEquals(org.apache.rocketmq.store.PutMessageStatus.PUT_OK, store.putMessage(m).getPutMessageStatus());
        }
    }

    private static void putBasalt(MessageStore store, int from, int count) {
        for (int i = from; i < from + count; i++) {
            byte[] body = ("body-" + i + "-".repeat(300)).getBytes();
            BrokerMessage m = BrokerMessage.builder().topic(TOPIC).queueId(i % 3).body(body).bornTimestamp(System.currentTimeMillis())
                .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
            assertTrue(store.asyncPutMessage(m).join().isOk());
        }
    }

    /** The CommitLog bytes [0, end) of a store directory, its files concatenated in order. */
    private static byte[] commitLog(Path dir, long end) throws IOException {
        byte[] out = new byte[(int) end];
        List<Path> files;
        try (Stream<Path> s = Files.list(dir.resolve("commitlog"))) {
            files = s.filter(p -> p.getFileName().toString().matches("\\d{20}")).sorted().toList();
        }
        for (Path p : files) {
            long base = Long.parseLong(p.getFileName().toString());
            if (base >= end) {
                continue;
            }
            byte[] all = Files.readAllBytes(p);
            System.arraycopy(all, 0, out, (int) base, (int) Math.min(all.length, end - base));
        }
        return out;
    }

    @Test
    void basaltSlaveFollowsARocketMqMaster() throws Exception {
        int haPort = freePort();
        DefaultMessageStore rocketMq = openRocketMq(root.resolve("rmq"), BrokerRole.SYNC_MASTER, haPort);
        MessageStore basalt = null;
        AutoSwitchClient client = null;
        try {
            AutoSwitchHAService ha = (AutoSwitchHAService) rocketMq.getHaService();
            ha.setLocalBrokerId(MASTER_ID);
            assertTrue(ha.changeToMaster(1));
            ha.setSyncStateSet(Set.of(MASTER_ID));
            List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
            ha.registerSyncStateSetChangedListener(proposals::add);
            putRocketMq(rocketMq, 0, 400); // more than two CommitLog files

            basalt = openBasalt(root.resolve("basalt"));
            EpochFile epochs = EpochFile.open(root.resolve("basalt"));
            client = new AutoSwitchClient(basalt, epochs, basaltHa(0), new Peer(SLAVE_ID, "127.0.0.1:10921"),
                new InetSocketAddress("127.0.0.1", haPort), null);
            client.start();
            MessageStore slave = basalt;
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> slave.getMaxPhyOffset() == rocketMq.getMaxPhyOffset());
            putRocketMq(rocketMq, 400, 100); // while streaming
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> slave.getMaxPhyOffset() == rocketMq.getMaxPhyOffset());

            long end = rocketMq.getMaxPhyOffset();
            assertArrayEquals(commitLog(root.resolve("rmq"), end), commitLog(root.resolve("basalt"), end));
            assertEquals(List.of(new EpochFile.Entry(1, 0)), epochs.entries());
            // RocketMQ's master understood the acks: the Basalt slave caught up and is proposed for the SyncStateSet
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
        } finally {
            if (client != null) {
                client.shutdown();
            }
            if (basalt != null) {
                basalt.shutdown();
            }
            RocketMqStoreShutdown.shutdown(rocketMq);
        }
    }

    @Test
    void rocketMqSlaveFollowsABasaltMaster() throws Exception {
        MessageStore basalt = openBasalt(root.resolve("basalt"));
        EpochFile epochs = EpochFile.open(root.resolve("basalt"));
        HAService master = HAService.controllerMode(basalt, epochs, basaltHa(0), new Peer(MASTER_ID, "127.0.0.1:10911"));
        DefaultMessageStore rocketMq = null;
        try {
            master.start();
            List<Set<Long>> proposals = new CopyOnWriteArrayList<>();
            master.syncStateSet().onProposal(proposals::add);
            putBasalt(basalt, 0, 400);

            rocketMq = openRocketMq(root.resolve("rmq"), BrokerRole.SLAVE, freePort());
            AutoSwitchHAService ha = (AutoSwitchHAService) rocketMq.getHaService();
            assertTrue(ha.changeToSlave("127.0.0.1:10911", 1, SLAVE_ID));
            ha.updateHaMasterAddress("127.0.0.1:" + master.localPort());
            DefaultMessageStore slave = rocketMq;
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> slave.getMaxPhyOffset() == basalt.getMaxPhyOffset());
            putBasalt(basalt, 400, 100);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> slave.getMaxPhyOffset() == basalt.getMaxPhyOffset());

            long end = basalt.getMaxPhyOffset();
            assertArrayEquals(commitLog(root.resolve("basalt"), end), commitLog(root.resolve("rmq"), end));
            List<EpochEntry> rocketMqEpochs = ha.getEpochEntries();
            assertEquals(1, rocketMqEpochs.size(), rocketMqEpochs.toString());
            assertEquals(1, rocketMqEpochs.get(0).getEpoch());
            assertEquals(0, rocketMqEpochs.get(0).getStartOffset());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> proposals.contains(Set.of(MASTER_ID, SLAVE_ID)));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> master.slaves().size() == 1
                && master.slaves().get(0).ackOffset() == end);
        } finally {
            master.shutdown();
            if (rocketMq != null) {
                RocketMqStoreShutdown.shutdown(rocketMq);
            }
            basalt.shutdown();
        }
    }

    @Test
    void basaltReplicaCutsItsDivergentTailWhenItFollowsARocketMqMasterOfANewerEpoch() throws Exception {
        MessageStore basalt = openBasalt(root.resolve("basalt"));
        EpochFile epochs = EpochFile.open(root.resolve("basalt"));
        HAService basaltMaster = HAService.controllerMode(basalt, epochs, basaltHa(0), new Peer(MASTER_ID, "127.0.0.1:10911"));
        int rocketMqHaPort = freePort();
        DefaultMessageStore rocketMq = null;
        AutoSwitchClient client = null;
        try {
            basaltMaster.start();
            putBasalt(basalt, 0, 200);
            // RocketMQ replicates epoch 1 from Basalt
            rocketMq = openRocketMq(root.resolve("rmq"), BrokerRole.SLAVE, rocketMqHaPort);
            AutoSwitchHAService ha = (AutoSwitchHAService) rocketMq.getHaService();
            assertTrue(ha.changeToSlave("127.0.0.1:10911", 1, SLAVE_ID));
            ha.updateHaMasterAddress("127.0.0.1:" + basaltMaster.localPort());
            DefaultMessageStore r = rocketMq;
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> r.getMaxPhyOffset() == basalt.getMaxPhyOffset());
            long common = basalt.getMaxPhyOffset();
            // RocketMQ is elected for epoch 2; the old Basalt master, cut off, still writes a tail
            ha.setLocalBrokerId(SLAVE_ID);
            assertTrue(ha.changeToMaster(2));
            rocketMq.getMessageStoreConfig().setBrokerRole(BrokerRole.SYNC_MASTER);
            ha.setSyncStateSet(Set.of(SLAVE_ID));
            putBasalt(basalt, 200, 100);
            assertTrue(basalt.getMaxPhyOffset() > common);
            basaltMaster.shutdown();
            putRocketMq(rocketMq, 0, 150);

            client = new AutoSwitchClient(basalt, epochs, basaltHa(0), new Peer(MASTER_ID, "127.0.0.1:10911"),
                new InetSocketAddress("127.0.0.1", rocketMqHaPort), null);
            client.start();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> basalt.getMaxPhyOffset() == r.getMaxPhyOffset());
            long end = rocketMq.getMaxPhyOffset();
            assertArrayEquals(commitLog(root.resolve("rmq"), end), commitLog(root.resolve("basalt"), end));
            assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, common)), epochs.entries());
        } finally {
            if (client != null) {
                client.shutdown();
            }
            basaltMaster.shutdown();
            if (rocketMq != null) {
                RocketMqStoreShutdown.shutdown(rocketMq);
            }
            basalt.shutdown();
        }
    }

    @Test
    void rocketMqReplicaCutsItsDivergentTailWhenItFollowsABasaltMasterOfANewerEpoch() throws Exception {
        int rocketMqHaPort = freePort();
        DefaultMessageStore rocketMq = openRocketMq(root.resolve("rmq"), BrokerRole.SYNC_MASTER, rocketMqHaPort);
        MessageStore basalt = openBasalt(root.resolve("basalt"));
        EpochFile epochs = EpochFile.open(root.resolve("basalt"));
        AutoSwitchClient client = null;
        HAService basaltMaster = null;
        try {
            AutoSwitchHAService ha = (AutoSwitchHAService) rocketMq.getHaService();
            ha.setLocalBrokerId(MASTER_ID);
            assertTrue(ha.changeToMaster(1));
            ha.setSyncStateSet(Set.of(MASTER_ID));
            putRocketMq(rocketMq, 0, 200);
            client = new AutoSwitchClient(basalt, epochs, basaltHa(0), new Peer(SLAVE_ID, "127.0.0.1:10921"),
                new InetSocketAddress("127.0.0.1", rocketMqHaPort), null);
            client.start();
            DefaultMessageStore r = rocketMq;
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> basalt.getMaxPhyOffset() == r.getMaxPhyOffset());
            long common = basalt.getMaxPhyOffset();
            // Basalt is elected for epoch 2; the old RocketMQ master, cut off, still writes a tail
            client.shutdown();
            basalt.replicatedLog().alignQueueOffsetsWithLog();
            assertEquals(2, epochs.startEpoch(common));
            basaltMaster = HAService.controllerMode(basalt, epochs, basaltHa(0), new Peer(SLAVE_ID, "127.0.0.1:10921"));
            basaltMaster.start();
            putRocketMq(rocketMq, 200, 100);
            assertTrue(rocketMq.getMaxPhyOffset() > common);
            putBasalt(basalt, 0, 150);

            rocketMq.getMessageStoreConfig().setBrokerRole(BrokerRole.SLAVE);
            assertTrue(ha.changeToSlave("127.0.0.1:10921", 2, MASTER_ID));
            ha.updateHaMasterAddress("127.0.0.1:" + basaltMaster.localPort());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> r.getMaxPhyOffset() == basalt.getMaxPhyOffset());
            long end = basalt.getMaxPhyOffset();
            assertArrayEquals(commitLog(root.resolve("basalt"), end), commitLog(root.resolve("rmq"), end));
            List<EpochEntry> rocketMqEpochs = ha.getEpochEntries();
            assertEquals(2, rocketMqEpochs.size(), rocketMqEpochs.toString());
            assertEquals(2, rocketMqEpochs.get(1).getEpoch());
            assertEquals(common, rocketMqEpochs.get(1).getStartOffset());
            // RocketMQ 5.2.0's truncation (DefaultMessageStore.isOffsetAligned) selects the file at the cut and never
            // releases it; give that one hold back so that its shutdown can unmap the file
            rocketMq.getCommitLog().getMappedFileQueue().findMappedFileByOffset(common).release();
        } finally {
            if (client != null) {
                client.shutdown();
            }
            if (basaltMaster != null) {
                basaltMaster.shutdown();
            }
            basalt.shutdown();
            RocketMqStoreShutdown.shutdown(rocketMq);
        }
    }
}
