package io.basalt.broker.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import org.junit.jupiter.api.Test;

class ProducerRegistryTest {
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ProducerRegistry registry = new ProducerRegistry(clock::get);

    @Test
    void aHeartbeatRegistersTheProducerWithItsLanguageVersionAndTime() {
        Connection c = new Connection(50001);
        registry.register("pg", "client-1", c, "JAVA", 453);
        List<ProducerRegistry.Producer> producers = registry.producers("pg");
        assertEquals(List.of(new ProducerRegistry.Producer("client-1", c, "JAVA", 453, 1_000_000)), producers);
        assertEquals(Set.of("pg"), registry.groupNames());
        assertEquals(Optional.of(c), registry.connectionOf("client-1"));
    }

    @Test
    void aLaterHeartbeatOnTheSameConnectionOnlyRefreshesTheTime() {
        Connection c = new Connection(50001);
        registry.register("pg", "client-1", c, "JAVA", 453);
        clock.addAndGet(30_000);
        registry.register("pg", "client-1", c, "CPP", 1);
        assertEquals(List.of(new ProducerRegistry.Producer("client-1", c, "JAVA", 453, 1_030_000)), registry.producers("pg"));
    }

    @Test
    void producersSilentForLongerThanTheExpiryAreDroppedAndTheirConnectionsClosed() {
        Connection silent = new Connection(50001);
        Connection talking = new Connection(50002);
        registry.register("pg", "silent", silent, "JAVA", 453);
        clock.addAndGet(100_000);
        registry.register("pg", "talking", talking, "JAVA", 453);
        clock.addAndGet(20_001);

        assertEquals(1, registry.expire(clock.get() - 120_000));
        assertFalse(silent.isActive(), "RocketMQ closes an expired producer's connection");
        assertEquals(List.of("talking"), clientIds(registry.producers("pg")));
        assertTrue(registry.connectionOf("silent").isEmpty());

        clock.addAndGet(120_000);
        assertEquals(1, registry.expire(clock.get() - 120_000));
        assertEquals(Set.of(), registry.groupNames(), "a group without producers is forgotten");
        assertTrue(registry.checkChannel("pg", null).isEmpty());
    }

    @Test
    void aClosedConnectionIsForgottenInEveryGroup() {
        Connection c = new Connection(50001);
        Connection other = new Connection(50002);
        registry.register("pg", "client-1", c, "JAVA", 453);
        registry.register("CLIENT_INNER_PRODUCER", "client-1", c, "JAVA", 453);
        registry.register("pg", "client-2", other, "JAVA", 453);
        c.close();
        assertEquals(List.of("client-2"), clientIds(registry.producers("pg")), "a closed connection is not listed even before the event");
        registry.connectionClosed(c);
        assertEquals(Set.of("pg"), registry.groupNames());
        assertTrue(registry.connectionOf("client-1").isEmpty());
        assertEquals(Optional.of(other), registry.checkChannel("pg", c.remoteAddress()));
    }

    @Test
    void unregisteringLeavesOnlyThatGroup() {
        Connection c = new Connection(50001);
        registry.register("pg", "client-1", c, "JAVA", 453);
        registry.register("CLIENT_INNER_PRODUCER", "client-1", c, "JAVA", 453);

        registry.unregister("pg", "client-1");
        assertEquals(Set.of("CLIENT_INNER_PRODUCER"), registry.groupNames());
        assertEquals(Optional.of(c), registry.connectionOf("client-1"), "still a producer of another group");
        assertTrue(registry.checkChannel("pg", c.remoteAddress()).isEmpty());

        registry.unregister("CLIENT_INNER_PRODUCER", "client-1");
        assertTrue(registry.connectionOf("client-1").isEmpty());
        assertEquals(Set.of(), registry.groupNames());
    }

    @Test
    void theCheckGoesToTheClientThatProducedTheMessage() throws Exception {
        Connection a = new Connection(50001);
        Connection b = new Connection(50002);
        Connection c = new Connection(50003);
        registry.register("pg", "a", a, "JAVA", 453);
        registry.register("pg", "b", b, "JAVA", 453);
        registry.register("pg", "c", c, "JAVA", 453);
        // the born host as decoded from a stored record: an unresolved-style address of the same IP and port
        SocketAddress bornHost = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 50002);
        for (int i = 0; i < 10; i++) {
            assertEquals(Optional.of(b), registry.checkChannel("pg", bornHost));
        }
    }

    @Test
    void withoutTheProducingClientTheGroupIsAskedInTurn() {
        Connection a = new Connection(50001);
        Connection b = new Connection(50002);
        registry.register("pg", "a", a, "JAVA", 453);
        registry.register("pg", "b", b, "JAVA", 453);
        Set<RemotingConnection> asked = new HashSet<>();
        SocketAddress gone = new InetSocketAddress("127.0.0.1", 59999);
        for (int i = 0; i < 4; i++) {
            asked.add(registry.checkChannel("pg", gone).orElseThrow());
        }
        assertEquals(Set.of(a, b), asked, "round robin over the group");

        b.close();
        for (int i = 0; i < 4; i++) {
            assertEquals(Optional.of(a), registry.checkChannel("pg", b.remoteAddress()), "a closed producer is not asked");
        }
    }

    @Test
    void aWritableConnectionIsPreferredAndAnUnwritableOneIsTheLastResort() {
        Connection full = new Connection(50001);
        Connection free = new Connection(50002);
        full.writable = false;
        registry.register("pg", "full", full, "JAVA", 453);
        registry.register("pg", "free", free, "JAVA", 453);
        for (int i = 0; i < 4; i++) {
            assertEquals(Optional.of(free), registry.checkChannel("pg", full.remoteAddress()),
                "the producing client's connection is skipped while it is not writable");
        }
        free.close();
        assertEquals(Optional.of(full), registry.checkChannel("pg", null), "merely active beats nothing");
        full.close();
        assertTrue(registry.checkChannel("pg", null).isEmpty());
    }

    @Test
    void onlyThreeCandidatesAreTriedForAWritableOne() {
        // RocketMQ's rule: three consecutive candidates; past them the last active one is taken
        Connection[] connections = new Connection[5];
        for (int i = 0; i < connections.length; i++) {
            connections[i] = new Connection(50001 + i);
            connections[i].writable = i == 4;
            registry.register("pg", "c" + i, connections[i], "JAVA", 453);
        }
        int writable = 0;
        for (int i = 0; i < 50; i++) {
            if (registry.checkChannel("pg", null).orElseThrow() == connections[4]) {
                writable++;
            }
        }
        assertTrue(writable > 0 && writable < 50, "found only when within three of the turn: " + writable);
    }

    @Test
    void addressesMatchByIpAndPort() {
        assertTrue(ProducerRegistry.sameEndpoint(new InetSocketAddress("127.0.0.1", 1), new InetSocketAddress("localhost", 1)));
        assertFalse(ProducerRegistry.sameEndpoint(new InetSocketAddress("127.0.0.1", 1), new InetSocketAddress("127.0.0.1", 2)));
        assertFalse(ProducerRegistry.sameEndpoint(new InetSocketAddress("127.0.0.1", 1), null));
    }

    private static List<String> clientIds(List<ProducerRegistry.Producer> producers) {
        return producers.stream().map(ProducerRegistry.Producer::clientId).sorted().toList();
    }

    /** A connection from 127.0.0.1:{@code port}, open until closed. */
    static final class Connection implements RemotingConnection {
        private final InetSocketAddress remote;
        volatile boolean active = true;
        volatile boolean writable = true;

        Connection(int port) {
            this.remote = new InetSocketAddress("127.0.0.1", port);
        }

        @Override
        public SocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            active = false;
        }
    }
}
