package io.basalt.broker.controller;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.ha.EpochFile;
import io.basalt.ha.HAConfig;
import io.basalt.ha.Peer;
import io.basalt.ha.Replication;
import io.basalt.store.MessageStore;
import io.basalt.store.testing.TestMessages;
import io.basalt.store.testing.TestStores;

/** The role manager's state machine against an in-memory Controller, with real stores and real HA replication. */
class ControllerRoleManagerTest {
    @TempDir
    Path dir;

    private final InMemoryController controller = new InMemoryController();
    /** remoting address → HA address, what the NameServers would answer. */
    private final Map<String, InetSocketAddress> haAddresses = new ConcurrentHashMap<>();
    private final List<AutoCloseable> closing = new ArrayList<>();

    private final class Node implements ControllerRoleManager.RoleListener {
        final String address;
        final MessageStore store;
        final Replication replication;
        final ControllerRoleManager manager;
        final List<String> events = new CopyOnWriteArrayList<>();

        Node(String name, long id, String address) throws Exception {
            this.address = address;
            Path root = dir.resolve(name);
            store = TestStores.start(TestStores.config(root).mappedFileSizeCommitLog(1024 * 1024).build());
            EpochFile epochs = EpochFile.open(root);
            HAConfig ha = HAConfig.builder().haListenPort(0).haSendHeartbeatInterval(200).haHousekeepingInterval(3000)
                .reconnectIntervalMs(100).build();
            replication = Replication.controlled(store, epochs, ha, new Peer(-1, address));
            replication.start();
            ControllerRoleManager.Settings settings = new ControllerRoleManager.Settings("DefaultCluster", "broker-a",
                address, 50, 1500, Integer.MAX_VALUE, 100, 100, 10_000, 15_000);
            manager = new ControllerRoleManager(controller,
                () -> new ControllerRegistration.Registered(id, controller.register("DefaultCluster", "broker-a", id, address)),
                settings, replication, epochs, this, System::currentTimeMillis);
            closing.add(0, () -> {
                manager.shutdown();
                replication.shutdown();
                store.shutdown();
            });
        }

        @Override
        public void becameMaster(long epoch) {
            events.add("master@" + epoch);
            haAddresses.put(address, new InetSocketAddress("127.0.0.1", replication.haListenPort()));
        }

        @Override
        public void becameSlave(long epoch, String masterAddress) {
            events.add("slave@" + epoch + ":" + masterAddress);
        }

        @Override
        public Optional<InetSocketAddress> masterHaAddress(String masterAddress) {
            return Optional.ofNullable(haAddresses.get(masterAddress));
        }

        void put(int n) {
            for (int i = 0; i < n; i++) {
                store.asyncPutMessage(TestMessages.message("T", i % 4, new byte[256]).build()).join();
            }
        }
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void firstBrokerIsElectedOthersFollowAndAFailoverSwitchesBothWays() throws Exception {
        Node a = new Node("a", 1, "127.0.0.1:30911");
        assertFalse(a.replication.acceptsWrites(), "fenced before the controller answered");
        a.manager.start();
        await().atMost(ofSeconds(10)).until(() -> a.replication.acceptsWrites());
        assertEquals(ControllerRoleManager.Role.MASTER, a.manager.role());
        assertEquals(1, a.manager.masterEpoch());
        assertEquals(List.of(new EpochFile.Entry(1, 0)), a.replication.epochFile().entries());
        assertEquals(List.of("master@1"), a.events);
        assertEquals(1, a.manager.elections());
        assertEquals(0, a.manager.timeWithoutMasterMs());
        a.put(100);

        Node b = new Node("b", 2, "127.0.0.1:30921");
        b.manager.start();
        await().atMost(ofSeconds(10)).until(() -> b.store.getMaxPhyOffset() == a.store.getMaxPhyOffset());
        assertEquals(ControllerRoleManager.Role.SLAVE, b.manager.role());
        assertEquals(List.of("slave@1:127.0.0.1:30911"), b.events);
        await().atMost(ofSeconds(10)).until(() -> controller.syncStateSet().equals(Set.of(1L, 2L)));
        await().atMost(ofSeconds(10)).until(() -> a.manager.syncStateSet().brokerIds().equals(Set.of(1L, 2L)));
        await().atMost(ofSeconds(5)).until(() -> controller.heartbeats.containsKey(2L)
            && controller.heartbeats.get(2L).epoch() == 1);

        // the controller elects b (a's heartbeats expired) and pushes it; a learns it at its next poll
        b.manager.onRoleChangeNotified(controller.elect(2));
        await().atMost(ofSeconds(10)).until(() -> b.replication.acceptsWrites());
        await().atMost(ofSeconds(10)).until(() -> a.manager.role() == ControllerRoleManager.Role.SLAVE);
        assertFalse(a.replication.acceptsWrites());
        assertEquals(2, b.replication.epochFile().lastEpoch());
        b.put(50);
        await().atMost(ofSeconds(10)).until(() -> a.store.getMaxPhyOffset() == b.store.getMaxPhyOffset());
        assertEquals(List.of("master@1", "slave@2:127.0.0.1:30921"), a.events);
        assertEquals(List.of("slave@1:127.0.0.1:30911", "master@2"), b.events);
        // an older push changes nothing
        b.manager.onRoleChangeNotified(new ControllerApi.ReplicaInfo(1, a.address, 1,
            new ControllerApi.SyncStateSet(Set.of(1L), 1)));
        await().during(ofSeconds(1)).atMost(ofSeconds(2)).until(() -> b.manager.role() == ControllerRoleManager.Role.MASTER);
    }

    @Test
    void aMasterCutOffFromTheControllerStopsWritesUntilConfirmed() throws Exception {
        Node a = new Node("a", 1, "127.0.0.1:30911");
        a.manager.start();
        await().atMost(ofSeconds(10)).until(() -> a.replication.acceptsWrites());
        controller.reachable = false;
        await().atMost(ofSeconds(10)).until(() -> !a.replication.acceptsWrites());
        assertTrue(a.replication.writeSuspension().contains("controllerHeartBeatTimeoutMills"));
        assertEquals(ControllerRoleManager.Role.MASTER, a.manager.role());
        controller.reachable = true;
        await().atMost(ofSeconds(10)).until(() -> a.replication.acceptsWrites());
        assertEquals(1, a.manager.masterEpoch());
    }
}
