package io.basalt.it.controller;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.controller.BrokerIdentityFile;
import io.basalt.broker.controller.ControllerApi.BrokerHeartbeat;
import io.basalt.broker.controller.ControllerApi.ElectionResult;
import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import io.basalt.broker.controller.ControllerApi.SyncStateSet;
import io.basalt.broker.controller.ControllerException;
import io.basalt.broker.controller.ControllerRegistration;
import io.basalt.broker.controller.ControllerResponseCode;
import io.basalt.broker.controller.RemotingControllerClient;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * Basalt's Controller client ({@link RemotingControllerClient}, {@link ControllerRegistration}) against the official
 * RocketMQ 5.2.0 Controller: ids, registration, elections, SyncStateSet changes, the 1008 push after the master's
 * heartbeats stop, a Controller that lost its metadata, and a three-node group losing its leader to kill -9.
 */
class ControllerClientTest {
    private static final String CLUSTER = "DefaultCluster";
    private static final String SET = "broker-a";
    /** The brokers' heartbeat validity: the Controller deems a broker dead this long after its last heartbeat. */
    private static final long HEARTBEAT_TIMEOUT_MS = 3000;

    @TempDir
    Path dir;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /**
     * Brokers whose heartbeats run: id → its address and its own client. Each broker needs a connection of its
     * own: the Controller closes the channel of a broker whose heartbeats expired, and takes every broker that
     * heartbeats on that channel for dead.
     */
    private final Map<Long, Beating> beating = new ConcurrentHashMap<>();

    private record Beating(String address, RemotingControllerClient client) {
    }
    private ScheduledExecutorService heartbeats;

    @AfterEach
    void closeAll() throws Exception {
        if (heartbeats != null) {
            heartbeats.shutdownNow();
            heartbeats.awaitTermination(5, TimeUnit.SECONDS);
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T keep(T resource) {
        resources.add(resource);
        return resource;
    }

    private RemotingControllerClient client(String controllerAddr) {
        RemotingControllerClient client = keep(new RemotingControllerClient(controllerAddr, NettyClientConfig.defaults(),
            3000, 1000, 500));
        client.start();
        return client;
    }

    /** Heartbeats every 300 ms, as a broker sends them, for every broker in {@link #beating}. */
    private void startHeartbeats() {
        heartbeats = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "TestBrokerHeartbeat"));
        heartbeats.scheduleWithFixedDelay(() -> beating.forEach((id, b) -> b.client().heartbeat(new BrokerHeartbeat(
            CLUSTER, b.address(), SET, id, -1, 0, 0, HEARTBEAT_TIMEOUT_MS, Integer.MAX_VALUE))), 0, 300, TimeUnit.MILLISECONDS);
    }

    /** A Basalt remoting server standing in for a broker, recording the 1008 pushes it receives. */
    private NettyRemotingServer broker(List<RemotingCommand> pushes) {
        RequestExecutor executor = RequestExecutor.create("TestRoleChangeThread_", 1, 16, 0);
        resources.add(() -> executor.shutdown(5000));
        NettyServerConfig defaults = NettyServerConfig.defaults(0);
        NettyRemotingServer server = new NettyRemotingServer(new NettyServerConfig("127.0.0.1", 0, 1,
            defaults.maxFrameLength(), 120, 1000, false));
        server.registerProcessor(RequestCode.NOTIFY_BROKER_ROLE_CHANGED, (context, request) -> {
            pushes.add(request);
            return CompletableFuture.completedFuture(null);
        }, executor);
        server.start();
        resources.add(server::shutdown);
        return server;
    }

    @Test
    void oneNodeGrantsIdsElectsAndPushesTheRoleChangeWhenTheMasterDies() throws Exception {
        RocketMqControllerProcess controller = keep(RocketMqControllerProcess.startSingle(dir.resolve("controller"),
            RocketMqControllerProcess.FAST));
        RemotingControllerClient client = client(controller.controllerAddr());
        assertEquals(controller.address(0), client.metadata().leaderAddress());
        assertTrue(client.metadata().isLeader());

        List<RemotingCommand> pushesTo1 = new CopyOnWriteArrayList<>();
        List<RemotingCommand> pushesTo2 = new CopyOnWriteArrayList<>();
        String address1 = "127.0.0.1:" + broker(pushesTo1).localPort();
        String address2 = "127.0.0.1:" + broker(pushesTo2).localPort();

        // ids: 1 for a new set; the same check code again is an idempotent retry, another one is refused
        assertEquals(1, client.nextBrokerId(CLUSTER, SET));
        client.applyBrokerId(CLUSTER, SET, 1, address1 + ";1000");
        client.applyBrokerId(CLUSTER, SET, 1, address1 + ";1000");
        ControllerException taken = assertThrows(ControllerException.class,
            () -> client.applyBrokerId(CLUSTER, SET, 1, address2 + ";2000"));
        assertEquals(ControllerResponseCode.BROKER_ID_INVALID, taken.code());
        assertEquals(2, client.nextBrokerId(CLUSTER, SET));
        client.applyBrokerId(CLUSTER, SET, 2, address2 + ";2000");

        ReplicaInfo registered = client.register(CLUSTER, SET, 1, address1);
        assertFalse(registered.hasMaster(), registered.toString());
        startHeartbeats();
        beating.put(1L, new Beating(address1, client(controller.controllerAddr())));

        // the first broker to ask becomes master: epoch 1, SyncStateSet {1}
        ElectionResult first = await().atMost(Duration.ofSeconds(20)).ignoreException(ControllerException.class)
            .until(() -> client.electMaster(CLUSTER, SET, 1), r -> true);
        assertTrue(first.elected(), first.toString());
        assertEquals(1, first.master().masterBrokerId());
        assertEquals(address1, first.master().masterAddress());
        assertEquals(1, first.master().masterEpoch());
        assertEquals(Set.of(1L), first.master().syncStateSet().brokerIds());
        // every id granted so far, 2 with the address of its check code
        assertEquals(Map.of(1L, address1, 2L, address2), first.brokerAddrs());

        // the second broker registers as a replica of 1, and its election returns the living master
        // once broker 1's heartbeats arrived, the Controller names it as the live master
        ReplicaInfo second = await().atMost(Duration.ofSeconds(10)).until(() -> client.register(CLUSTER, SET, 2, address2),
            ReplicaInfo::hasMaster);
        assertEquals(1, second.masterBrokerId(), second.toString());
        assertEquals(address1, second.masterAddress());
        beating.put(2L, new Beating(address2, client(controller.controllerAddr())));
        ElectionResult still = client.electMaster(CLUSTER, SET, 2);
        assertFalse(still.elected(), still.toString());
        assertEquals(1, still.master().masterBrokerId());
        assertEquals(1, still.master().masterEpoch());
        assertEquals(Set.of(1L), still.master().syncStateSet().brokerIds());
        // RocketMQ 5.2.0 answers MASTER_STILL_EXIST without the member group
        assertEquals(Map.of(), still.brokerAddrs());

        // the master widens the SyncStateSet; a proposal on the old epoch is fenced
        int setEpoch = client.replicaInfo(SET).syncStateSet().epoch();
        SyncStateSet widened = await().atMost(Duration.ofSeconds(10)).ignoreException(ControllerException.class)
            .until(() -> client.alterSyncStateSet(SET, 1, 1, new SyncStateSet(Set.of(1L, 2L), setEpoch)), r -> true);
        assertEquals(new SyncStateSet(Set.of(1L, 2L), setEpoch + 1), widened);
        ControllerException stale = assertThrows(ControllerException.class,
            () -> client.alterSyncStateSet(SET, 1, 1, new SyncStateSet(Set.of(1L), setEpoch)));
        assertEquals(ControllerResponseCode.FENCED_SYNC_STATE_SET_EPOCH, stale.code());

        ReplicaInfo info = client.replicaInfo(SET);
        assertEquals(new ReplicaInfo(1, address1, 1, new SyncStateSet(Set.of(1L, 2L), setEpoch + 1)), info);
        ControllerException unknown = assertThrows(ControllerException.class, () -> client.replicaInfo("no-such-set"));
        assertEquals(ControllerResponseCode.BROKER_METADATA_NOT_EXIST, unknown.code());

        // the master's heartbeats stop: the Controller elects 2 and pushes 1008 to it
        beating.remove(1L);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !pushesTo2.isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no 1008 push; replica info " + client.replicaInfo(SET) + "; controller log:\n"
                + controller.controllerLog(0) + controller.output(0), e);
        }
        ReplicaInfo pushed = RemotingControllerClient.decodeRoleChange(pushesTo2.get(0));
        assertEquals(2, pushed.masterBrokerId(), pushed.toString());
        assertEquals(address2, pushed.masterAddress());
        assertEquals(2, pushed.masterEpoch());
        assertEquals(Set.of(2L), pushed.syncStateSet().brokerIds());
        assertEquals(setEpoch + 2, pushed.syncStateSet().epoch());
        assertEquals(pushed, client.replicaInfo(SET));
        // broker 1 may have been told of its own election (epoch 1, if it was live then); dead, of nothing after
        for (RemotingCommand push : pushesTo1) {
            assertEquals(new ReplicaInfo(1, address1, 1, new SyncStateSet(Set.of(1L), 1)),
                RemotingControllerClient.decodeRoleChange(push));
        }
    }

    @Test
    void registrationKeepsTheIdentityFilesAndReappliesWhenTheControllerLostItsMetadata() throws Exception {
        RocketMqControllerProcess controller = keep(RocketMqControllerProcess.startSingle(dir.resolve("controller"),
            RocketMqControllerProcess.FAST));
        RemotingControllerClient client = client(controller.controllerAddr());
        BrokerIdentityFile file1 = new BrokerIdentityFile(BrokerIdentityFile.defaultPath(dir.resolve("store1")));
        BrokerIdentityFile file2 = new BrokerIdentityFile(BrokerIdentityFile.defaultPath(dir.resolve("store2")));
        ControllerRegistration broker1 = new ControllerRegistration(client, file1, CLUSTER, SET, "127.0.0.1:30911",
            System::currentTimeMillis);
        ControllerRegistration broker2 = new ControllerRegistration(client, file2, CLUSTER, SET, "127.0.0.1:30921",
            System::currentTimeMillis);

        assertEquals(1, broker1.register().brokerId());
        assertEquals(2, broker2.register().brokerId());
        assertEquals(CLUSTER + "#" + SET + "#1", Files.readString(file1.path()));
        assertEquals(CLUSTER + "#" + SET + "#2", Files.readString(file2.path()));
        assertFalse(Files.exists(file1.tempPath()));
        // a restart reads the file: same id, no new application
        assertEquals(1, broker1.register().brokerId());
        assertEquals(3, client.nextBrokerId(CLUSTER, SET));

        // the Controller's store is wiped: broker 1 applies for its id again and keeps it
        controller.stop(0);
        deleteTree(controller.nodeDir(0).resolve("store"));
        controller.restart(0);
        ControllerRegistration.Registered again = await().atMost(Duration.ofSeconds(20))
            .ignoreException(ControllerException.class).until(broker1::register, r -> true);
        assertEquals(1, again.brokerId());
        assertEquals(CLUSTER + "#" + SET + "#1", Files.readString(file1.path()));
        // broker 2 applies for 2, which the Controller refuses for a set it knows only through 1; it gets the next id
        assertEquals(2, broker2.register().brokerId());
        assertEquals(3, client.nextBrokerId(CLUSTER, SET));
    }

    @Test
    void threeNodesTheClientFollowsTheNewLeaderAfterKillNine() throws Exception {
        RocketMqControllerProcess controller = keep(RocketMqControllerProcess.startCluster(dir.resolve("controller"),
            RocketMqControllerProcess.FAST));
        RemotingControllerClient client = client(controller.controllerAddr());
        int leader = controller.awaitLeader();
        assertEquals(controller.address(leader), client.metadata().leaderAddress());

        ControllerRegistration broker1 = new ControllerRegistration(client,
            new BrokerIdentityFile(BrokerIdentityFile.defaultPath(dir.resolve("store1"))), CLUSTER, SET,
            "127.0.0.1:30911", System::currentTimeMillis);
        assertEquals(1, broker1.register().brokerId());
        startHeartbeats();
        beating.put(1L, new Beating("127.0.0.1:30911", client(controller.controllerAddr())));
        ElectionResult first = await().atMost(Duration.ofSeconds(20)).ignoreException(ControllerException.class)
            .until(() -> client.electMaster(CLUSTER, SET, 1), r -> true);
        assertEquals(1, first.master().masterBrokerId());

        controller.kill(leader);
        int next = controller.awaitLeader();
        assertNotEquals(leader, next);

        ControllerRegistration broker2 = new ControllerRegistration(client,
            new BrokerIdentityFile(BrokerIdentityFile.defaultPath(dir.resolve("store2"))), CLUSTER, SET,
            "127.0.0.1:30921", System::currentTimeMillis);
        ControllerRegistration.Registered registered = await().atMost(Duration.ofSeconds(30))
            .ignoreException(ControllerException.class).until(broker2::register, r -> true);
        assertEquals(2, registered.brokerId());
        assertEquals(1, registered.replicaInfo().masterBrokerId(), registered.toString());
        assertEquals(controller.address(next), client.leaderAddress().orElseThrow());

        beating.put(2L, new Beating("127.0.0.1:30921", client(controller.controllerAddr())));
        ElectionResult still = await().atMost(Duration.ofSeconds(20)).ignoreException(ControllerException.class)
            .until(() -> client.electMaster(CLUSTER, SET, 2), r -> true);
        assertFalse(still.elected(), still.toString());
        assertEquals(1, still.master().masterBrokerId());
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
