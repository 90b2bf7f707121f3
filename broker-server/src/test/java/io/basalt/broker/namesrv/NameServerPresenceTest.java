package io.basalt.broker.namesrv;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.protocol.DataVersion;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker's presence on a fake NameServer on loopback, which routes {@code broker-a} as the test says (a
 * ClusterInfo body encoded by RocketMQ 5.2.0's own classes) and records every registration.
 */
class NameServerPresenceTest {
    private static final String SELF = "127.0.0.1:10911";
    private static final String OLD_MASTER = "127.0.0.1:10811";
    private static final String OTHER_MASTER = "127.0.0.1:10711";

    private final ConcurrentLinkedQueue<RemotingCommand> received = new ConcurrentLinkedQueue<>();
    /** The broker end of the connection each REGISTER_BROKER came on. */
    private final ConcurrentLinkedQueue<String> registeredFrom = new ConcurrentLinkedQueue<>();
    /** broker-a's brokerAddrs as the fake NameServer routes them. */
    private final AtomicReference<Map<Long, String>> routed = new AtomicReference<>(Map.of());
    private final List<NameServerPresence> presences = new ArrayList<>();
    private NettyRemotingServer nameServer;
    private RequestExecutor executor;
    private String address;

    /** A replication role the test sets; fencing it stops its writes, as the real one does. */
    private static final class FakeReplication implements ReplicationView {
        volatile boolean slave;
        volatile boolean writable;
        volatile String followed = "";
        final List<String> fences = new CopyOnWriteArrayList<>();

        static FakeReplication master() {
            FakeReplication r = new FakeReplication();
            r.writable = true;
            return r;
        }

        static FakeReplication slaveOf(String master) {
            FakeReplication r = new FakeReplication();
            r.slave = true;
            r.followed = master;
            return r;
        }

        void promote() {
            slave = false;
            writable = true;
        }

        @Override
        public boolean isSlave() {
            return slave;
        }

        @Override
        public boolean acceptsWrites() {
            return !slave && writable;
        }

        @Override
        public void fence(String reason) {
            if (!slave) {
                fences.add(reason);
                writable = false;
            }
        }

        @Override
        public String followedMasterAddr() {
            return followed;
        }
    }

    @BeforeEach
    void startFakeNameServer() {
        nameServer = new NettyRemotingServer(new NettyServerConfig("127.0.0.1", 0, 1, 1 << 20, 0, 1_000, true));
        executor = RequestExecutor.create("FakeNameServerThread_", 1, 64, 0);
        nameServer.registerProcessor(RequestCode.REGISTER_BROKER, (ctx, request) -> {
            registeredFrom.add(String.valueOf(ctx.remoteAddress()));
            return record(request);
        }, executor);
        nameServer.registerProcessor(RequestCode.UNREGISTER_BROKER, (ctx, request) -> record(request), executor);
        nameServer.registerProcessor(RequestCode.GET_BROKER_CLUSTER_INFO, (ctx, request) -> clusterInfo(), executor);
        nameServer.start();
        address = "127.0.0.1:" + nameServer.localPort();
    }

    private CompletableFuture<RemotingCommand> record(RemotingCommand request) {
        received.add(request);
        return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
    }

    /** GET_BROKER_CLUSTER_INFO's body exactly as RocketMQ 5.2.0's NameServer encodes it. */
    private CompletableFuture<RemotingCommand> clusterInfo() {
        ClusterInfo info = new ClusterInfo();
        HashMap<String, BrokerData> table = new HashMap<>();
        HashMap<String, Set<String>> clusters = new HashMap<>();
        if (!routed.get().isEmpty()) {
            table.put("broker-a", new BrokerData("DefaultCluster", "broker-a", new HashMap<>(routed.get())));
            clusters.put("DefaultCluster", Set.of("broker-a"));
        }
        info.setBrokerAddrTable(table);
        info.setClusterAddrTable(clusters);
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(info.encode());
        return CompletableFuture.completedFuture(response);
    }

    @AfterEach
    void stop() throws InterruptedException {
        presences.forEach(NameServerPresence::shutdown);
        nameServer.shutdown();
        executor.shutdown(5_000);
    }

    private NameServerPresence presence(long brokerId, ReplicationView replication) {
        return presence(List.of(address), brokerId, replication);
    }

    private NameServerPresence presence(List<String> nameServers, long brokerId, ReplicationView replication) {
        NameServerPresence p = new NameServerPresence(new NameServers(nameServers, 60_000, 3_000),
            new BrokerRegistration("DefaultCluster", "broker-a", brokerId, SELF, "127.0.0.1:10912"), replication,
            () -> new TopicConfigSerializeWrapper(Map.of("TBW102", TopicConfig.of("TBW102", 4, 7),
                "TopicA", TopicConfig.of("TopicA", 2, 6)), new DataVersion(0, 1_700_000_000_000L, 1)),
            () -> 1, () -> new NettyRemotingClient(NettyClientConfig.defaults()));
        presences.add(p);
        return p;
    }

    private List<String> brokerIds(int code) {
        return received.stream().filter(c -> c.code() == code).map(c -> c.extFields().get("brokerId")).toList();
    }

    @Test
    void aMasterTheNameServerRoutesToAnotherMasterStartsFencedAndDoesNotRegister() {
        routed.set(Map.of(0L, OTHER_MASTER));
        FakeReplication replication = FakeReplication.master();
        NameServerPresence presence = presence(0, replication);

        presence.fenceIfRoutedToAnotherMaster();
        assertEquals(1, replication.fences.size());
        assertTrue(replication.fences.get(0).contains(OTHER_MASTER), replication.fences.get(0));

        presence.start();
        assertFalse(presence.registered());
        assertEquals(List.of(), brokerIds(RequestCode.REGISTER_BROKER));
    }

    @Test
    void aMasterTheNameServerRoutesToItselfIsNotFencedAndRegistersAsBrokerIdZero() {
        routed.set(Map.of(0L, SELF, 1L, "127.0.0.1:10921"));
        FakeReplication replication = FakeReplication.master();
        NameServerPresence presence = presence(0, replication);

        presence.fenceIfRoutedToAnotherMaster();
        presence.start();
        assertEquals(List.of(), replication.fences);
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("0"));
        assertTrue(presence.registered());
    }

    @Test
    void aSlaveIsNotFencedWhereverTheNameServerRoutesItsMaster() {
        routed.set(Map.of(0L, OTHER_MASTER));
        FakeReplication replication = FakeReplication.slaveOf(OLD_MASTER);
        NameServerPresence presence = presence(1, replication);

        presence.fenceIfRoutedToAnotherMaster();
        presence.start();
        assertEquals(List.of(), replication.fences);
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("1"));
    }

    @Test
    void aFencedMasterUnregistersAndRegistersNoMore() {
        routed.set(Map.of(0L, SELF));
        FakeReplication replication = FakeReplication.master();
        NameServerPresence presence = presence(0, replication);
        presence.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> !brokerIds(RequestCode.REGISTER_BROKER).isEmpty());

        replication.fence("a slave of epoch 3 reached this master of epoch 2");
        presence.leaveWhenFenced("a slave of epoch 3 reached this master of epoch 2");
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.UNREGISTER_BROKER).equals(List.of("0")));
        await().atMost(Duration.ofSeconds(10)).until(() -> !presence.registered());

        // nothing brings it back: not a promotion's re-registration, not the shutdown (which has nothing to leave)
        presence.registerAgainAfterPromotion();
        assertFalse(presence.registered());
        presence.shutdown();
        assertEquals(List.of("0"), brokerIds(RequestCode.UNREGISTER_BROKER));
    }

    @Test
    void aPromotedSlaveLeavesAsItsBrokerIdAndRegistersAgainAsBrokerIdZero() {
        routed.set(Map.of(0L, OLD_MASTER, 1L, SELF));
        FakeReplication replication = FakeReplication.slaveOf(OLD_MASTER);
        NameServerPresence presence = presence(1, replication);
        presence.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("1"));

        assertEquals(Optional.empty(), presence.anotherPromotedMaster(), "the master it followed is no other master");
        replication.promote();
        presence.registerAgainAfterPromotion();

        assertEquals(List.of("1"), brokerIds(RequestCode.UNREGISTER_BROKER));
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("0"));
        assertTrue(presence.registered());
    }

    /**
     * A 5.x NameServer applies UNREGISTER_BROKER later, in a batch, to every brokerId of the address, and takes a
     * closed connection for a dead broker: either would remove the new brokerId 0 entry after it was made.
     */
    @Test
    void aRoleTheControllerGaveRegistersAtOnceOverTheSameConnectionWithoutUnregistering() {
        routed.set(Map.of(0L, OLD_MASTER, 2L, SELF));
        FakeReplication replication = FakeReplication.slaveOf(OLD_MASTER);
        NameServerPresence presence = presence(2, replication);
        presence.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("2"));

        replication.promote();
        presence.registerAgain();
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).contains("0"));
        replication.slave = true;
        presence.registerAgain();
        await().atMost(Duration.ofSeconds(10)).until(() -> brokerIds(RequestCode.REGISTER_BROKER).lastIndexOf("2")
            > brokerIds(RequestCode.REGISTER_BROKER).indexOf("0"));

        assertEquals(List.of(), brokerIds(RequestCode.UNREGISTER_BROKER));
        assertEquals(1, Set.copyOf(registeredFrom).size(), "connections: " + registeredFrom);
        assertTrue(presence.registered());
    }

    @Test
    void aSlaveIsNotPromotedWhenTheNameServerRoutesToAThirdMaster() {
        FakeReplication replication = FakeReplication.slaveOf(OLD_MASTER);
        NameServerPresence presence = presence(1, replication);

        routed.set(Map.of(0L, OTHER_MASTER, 1L, SELF));
        Optional<String> other = presence.anotherPromotedMaster();
        assertTrue(other.isPresent());
        assertTrue(other.get().contains(OTHER_MASTER), other.get());

        routed.set(Map.of(1L, SELF));
        assertEquals(Optional.empty(), presence.anotherPromotedMaster(), "no master routed");
    }

    @Test
    void shutdownUnregistersOnceAndLaterEventsDoNothing() {
        routed.set(Map.of(0L, SELF));
        NameServerPresence presence = presence(0, FakeReplication.master());
        presence.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> !brokerIds(RequestCode.REGISTER_BROKER).isEmpty());

        presence.shutdown();
        presence.shutdown();
        presence.leaveWhenFenced("after shutdown");
        presence.registerAgainAfterPromotion();
        presence.start();
        assertEquals(List.of("0"), brokerIds(RequestCode.UNREGISTER_BROKER));
        assertFalse(presence.registered());
    }

    @Test
    void withoutNameServersNothingIsAskedAndNothingRegistered() {
        FakeReplication replication = FakeReplication.master();
        NameServerPresence presence = presence(List.of(), 0, replication);
        presence.fenceIfRoutedToAnotherMaster();
        presence.start();
        assertEquals(Optional.empty(), presence.anotherPromotedMaster());
        assertEquals(List.of(), replication.fences);
        assertFalse(presence.registered());
        assertTrue(received.isEmpty());
    }
}
