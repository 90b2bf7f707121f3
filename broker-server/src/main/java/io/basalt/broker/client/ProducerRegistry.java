package io.basalt.broker.client;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.basalt.remoting.processor.RemotingConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producers known from HEART_BEAT (RocketMQ's {@code ProducerManager}): per group, each producer connection
 * with its client id, language, version and last heartbeat, until the client unregisters, its connection closes
 * or it stays silent past the expiry; and, per client id, the connection a reply to its request is pushed on.
 * Registration and removal are serialized (heartbeats are rare); lookups read the concurrent tables directly.
 */
public final class ProducerRegistry implements ProducerChannels {
    private static final Logger log = LoggerFactory.getLogger(ProducerRegistry.class);
    /** RocketMQ's GET_AVAILABLE_CHANNEL_RETRY_COUNT: round-robin candidates tried for a writable connection. */
    static final int CHANNEL_CANDIDATES = 3;

    /** One producer connection of a group, as its last heartbeat described it. */
    public record Producer(String clientId, RemotingConnection connection, String language, int version,
                           long lastUpdateMillis) {

        Producer refreshed(long now) {
            return new Producer(clientId, connection, language, version, now);
        }
    }

    private final ConcurrentMap<String, ConcurrentMap<RemotingConnection, Producer>> groups = new ConcurrentHashMap<>();
    /** Client id → its latest producer connection (RocketMQ's clientChannelTable). */
    private final ConcurrentMap<String, RemotingConnection> clientConnections = new ConcurrentHashMap<>();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final LongSupplier clock;

    public ProducerRegistry(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * Registers a producer of {@code group} on {@code connection}, or refreshes its heartbeat time when that
     * connection is already registered for the group (its client id, language and version stay those it
     * registered with, as in RocketMQ).
     */
    public synchronized void register(String group, String clientId, RemotingConnection connection, String language,
        int version) {
        if (connection == null) {
            log.debug("producer {} of group {} heartbeats without a connection; not registered", clientId, group);
            return;
        }
        long now = clock.getAsLong();
        ConcurrentMap<RemotingConnection, Producer> members = groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        Producer known = members.get(connection);
        if (known != null) {
            members.put(connection, known.refreshed(now));
            return;
        }
        members.put(connection, new Producer(clientId, connection, language, version, now));
        clientConnections.put(clientId, connection);
        log.info("new producer connected, group: {} client: {} from {}", group, clientId, connection.remoteAddress());
    }

    /** UNREGISTER_CLIENT: the client leaves {@code group}; it keeps its other groups and their connection. */
    public synchronized void unregister(String group, String clientId) {
        ConcurrentMap<RemotingConnection, Producer> members = groups.get(group);
        if (members != null && members.values().removeIf(p -> p.clientId().equals(clientId))) {
            log.info("producer {} unregistered from group {}", clientId, group);
            dropIfEmpty(group, members);
        }
        if (!isProducer(clientId)) {
            clientConnections.remove(clientId);
        }
    }

    /** The connection closed: every group forgets it. */
    public synchronized void connectionClosed(RemotingConnection connection) {
        for (Map.Entry<String, ConcurrentMap<RemotingConnection, Producer>> e : groups.entrySet()) {
            Producer removed = e.getValue().remove(connection);
            if (removed != null) {
                log.info("producer {} of group {} removed: its connection from {} closed", removed.clientId(), e.getKey(),
                    connection.remoteAddress());
                dropIfEmpty(e.getKey(), e.getValue());
            }
        }
        clientConnections.values().removeIf(c -> c.equals(connection));
    }

    /**
     * Drops producers whose last heartbeat is older than {@code deadlineMillis}, closing their connections as
     * RocketMQ does, and any whose connection is no longer open. Returns how many were dropped.
     */
    public synchronized int expire(long deadlineMillis) {
        int dropped = 0;
        for (Map.Entry<String, ConcurrentMap<RemotingConnection, Producer>> e : groups.entrySet()) {
            Iterator<Producer> it = e.getValue().values().iterator();
            while (it.hasNext()) {
                Producer p = it.next();
                boolean silent = p.lastUpdateMillis() < deadlineMillis;
                if (silent || !p.connection().isActive()) {
                    it.remove();
                    dropped++;
                    if (silent) {
                        log.warn("producer {} of group {} dropped: no heartbeat since {}; closing its connection from {}",
                            p.clientId(), e.getKey(), p.lastUpdateMillis(), p.connection().remoteAddress());
                        p.connection().close();
                    }
                }
            }
            dropIfEmpty(e.getKey(), e.getValue());
        }
        clientConnections.entrySet().removeIf(e -> !e.getValue().isActive() || !isProducer(e.getKey()));
        return dropped;
    }

    private void dropIfEmpty(String group, ConcurrentMap<RemotingConnection, Producer> members) {
        if (members.isEmpty() && groups.remove(group, members)) {
            log.info("producer group {} has no producer left", group);
        }
    }

    private boolean isProducer(String clientId) {
        for (ConcurrentMap<RemotingConnection, Producer> members : groups.values()) {
            for (Producer p : members.values()) {
                if (p.clientId().equals(clientId)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The open connection of the producer client {@code clientId} (RocketMQ's findChannel). */
    public Optional<RemotingConnection> connectionOf(String clientId) {
        RemotingConnection connection = clientConnections.get(clientId);
        return connection != null && connection.isActive() ? Optional.of(connection) : Optional.empty();
    }

    /** The producers of {@code group} on open connections; empty when the group has none. */
    public List<Producer> producers(String group) {
        ConcurrentMap<RemotingConnection, Producer> members = groups.get(group);
        if (members == null) {
            return List.of();
        }
        List<Producer> live = new ArrayList<>();
        for (Producer p : members.values()) {
            if (p.connection().isActive()) {
                live.add(p);
            }
        }
        return live;
    }

    /** Every group with producers on open connections, and those producers. */
    public Map<String, List<Producer>> table() {
        Map<String, List<Producer>> table = new LinkedHashMap<>();
        for (String group : groups.keySet()) {
            List<Producer> live = producers(group);
            if (!live.isEmpty()) {
                table.put(group, live);
            }
        }
        return table;
    }

    public Set<String> groupNames() {
        return Set.copyOf(groups.keySet());
    }

    /**
     * The connection of the client that produced the half message when it is open and writable; else, as
     * RocketMQ, the next of the group's connections in turn (a counter shared by all groups) that is open and
     * writable among {@value #CHANNEL_CANDIDATES} candidates; else the producing client's connection if merely
     * open; else the last merely open candidate. RocketMQ asks any member, which may be one that cannot answer
     * for the message (apache/rocketmq#9791); asking the producing client first avoids that while it lives.
     */
    @Override
    public Optional<RemotingConnection> checkChannel(String producerGroup, SocketAddress producedFrom) {
        ConcurrentMap<RemotingConnection, Producer> members = producerGroup == null ? null : groups.get(producerGroup);
        if (members == null || members.isEmpty()) {
            return Optional.empty();
        }
        RemotingConnection producing = producedFrom == null ? null : producingConnection(members, producedFrom);
        if (producing != null && producing.isWritable()) {
            return Optional.of(producing);
        }
        List<RemotingConnection> candidates = new ArrayList<>(members.keySet());
        if (candidates.isEmpty()) {
            return Optional.ofNullable(producing);
        }
        int index = (roundRobin.getAndIncrement() & Integer.MAX_VALUE) % candidates.size();
        RemotingConnection lastActive = null;
        for (int tried = 0; tried < CHANNEL_CANDIDATES; tried++) {
            RemotingConnection c = candidates.get((index + tried) % candidates.size());
            if (c.isActive() && c.isWritable()) {
                return Optional.of(c);
            }
            if (c.isActive()) {
                lastActive = c;
            }
        }
        return Optional.ofNullable(producing != null ? producing : lastActive);
    }

    /** The group's open connection whose peer is {@code address}, or null. */
    private static RemotingConnection producingConnection(Map<RemotingConnection, Producer> members,
        SocketAddress address) {
        for (RemotingConnection c : members.keySet()) {
            if (c.isActive() && sameEndpoint(c.remoteAddress(), address)) {
                return c;
            }
        }
        return null;
    }

    /** Same IP bytes and port (a born host decoded from a record is never resolved, a socket's peer may be). */
    static boolean sameEndpoint(SocketAddress a, SocketAddress b) {
        if (a instanceof InetSocketAddress x && b instanceof InetSocketAddress y) {
            if (x.getPort() != y.getPort()) {
                return false;
            }
            if (x.getAddress() != null && y.getAddress() != null) {
                return Arrays.equals(x.getAddress().getAddress(), y.getAddress().getAddress());
            }
            return x.getHostString().equals(y.getHostString());
        }
        return a != null && a.equals(b);
    }
}
