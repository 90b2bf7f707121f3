package io.basalt.broker.grpc;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import io.basalt.broker.client.ClientManager;
import io.basalt.store.StoredMessage;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongFunction;

/**
 * The gRPC clients this broker knows, by client id: the settings of their last Telemetry handshake and their
 * connection. Producers are registered in the broker's producer registry (group = topic, RocketMQ's proxy rule), so
 * they show up in producer-connection queries and receive transaction back-checks. Consumers are not registered as
 * remoting consumers: they would be handed queues by the remoting rebalance that they never pull from.
 */
final class GrpcClients {
    record Session(ClientMetadata metadata, Settings settings, GrpcClientConnection connection) { }

    private final ConcurrentMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, GrpcClientConnection> connections = new ConcurrentHashMap<>();
    private final ClientManager clients;
    private final TransactionOffsets transactions;
    private final LongFunction<StoredMessage> messageAt;
    private volatile java.util.function.Consumer<String> departure = clientId -> { };

    GrpcClients(ClientManager clients, TransactionOffsets transactions, LongFunction<StoredMessage> messageAt) {
        this.clients = clients;
        this.transactions = transactions;
        this.messageAt = messageAt;
    }

    /** Told the id of a client that ends or whose Telemetry stream closes. */
    void onDeparture(java.util.function.Consumer<String> departure) {
        this.departure = departure;
    }

    /** The client's Telemetry stream closed. */
    void streamClosed(String clientId) {
        departure.accept(clientId);
    }

    /** The client's connection, created at its first call. */
    GrpcClientConnection connection(String clientId, SocketAddress remoteAddress) {
        return connections.computeIfAbsent(clientId, id -> new GrpcClientConnection(id, remoteAddress, transactions,
            messageAt));
    }

    /** Records the client's settings (a Telemetry handshake) and registers it; returns its session. */
    Session settle(ClientMetadata metadata, Settings settings) {
        GrpcClientConnection connection = connection(metadata.clientId(), metadata.remoteAddress());
        Session session = new Session(metadata, settings, connection);
        sessions.put(metadata.clientId(), session);
        register(session);
        return session;
    }

    Optional<Session> session(String clientId) {
        return Optional.ofNullable(sessions.get(clientId));
    }

    /** A heartbeat: registers the client again (the registries drop producers not heard of for 120 s). */
    boolean heartbeat(String clientId) {
        Session s = sessions.get(clientId);
        if (s == null) {
            return false;
        }
        register(s);
        return true;
    }

    /** The client ends: forgets its settings, unregisters it, closes its stream. False when it was not known. */
    boolean terminate(String clientId) {
        Session s = sessions.remove(clientId);
        GrpcClientConnection c = connections.remove(clientId);
        if (s != null && s.settings().getClientType() == ClientType.PRODUCER) {
            for (Resource topic : s.settings().getPublishing().getTopicsList()) {
                clients.unregisterProducer(topic.getName(), clientId);
            }
        }
        if (c != null) {
            clients.connectionClosed(c);
            c.close();
        }
        departure.accept(clientId);
        return s != null;
    }

    int size() {
        return sessions.size();
    }

    /** Completes every client's Telemetry stream (the broker stops); the clients reconnect elsewhere or later. */
    void closeAll() {
        connections.values().forEach(GrpcClientConnection::close);
    }

    private void register(Session s) {
        if (s.settings().getClientType() == ClientType.PRODUCER) {
            for (Resource topic : s.settings().getPublishing().getTopicsList()) {
                clients.registerProducer(topic.getName(), s.metadata().clientId(), s.connection(),
                    s.metadata().languageName(), ClientVersions.ordinalOf(s.metadata().version()));
            }
        }
    }
}
