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
 * they show up in producer-connection queries and receive transaction back-checks. Consumers are registered in the
 * consumer registry (see {@link GrpcConsumerMembers}), so admin queries list them with their subscriptions; their
 * connection says {@code grpc}, which keeps them out of the remoting rebalance (they receive from every queue by POP).
 * A member whose Telemetry stream closed is dropped by the registry's expiry scan, as a closed remoting channel is.
 */
final class GrpcClients {
    /** @param subscriptions a consumer's subscriptions, parsed once at its handshake (empty for a producer) */
    record Session(ClientMetadata metadata, Settings settings, GrpcClientConnection connection,
                   java.util.List<io.basalt.broker.client.SubscriptionData> subscriptions) { }

    private final ConcurrentMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, GrpcClientConnection> connections = new ConcurrentHashMap<>();
    private final ClientManager clients;
    private final TransactionOffsets transactions;
    private final LongFunction<StoredMessage> messageAt;
    private final java.util.function.Function<String, StoredMessage> messageById;
    private volatile java.util.function.Consumer<String> departure = clientId -> { };
    private volatile GroupRecorder groupRecorder = group -> { };

    /** Records a consumer group and its retry topic, as a remoting consumer's heartbeat does. */
    @FunctionalInterface
    interface GroupRecorder {
        void record(String group) throws java.io.IOException;
    }

    GrpcClients(ClientManager clients, TransactionOffsets transactions, LongFunction<StoredMessage> messageAt,
                java.util.function.Function<String, StoredMessage> messageById) {
        this.messageById = messageById;
        this.clients = clients;
        this.transactions = transactions;
        this.messageAt = messageAt;
    }

    /** Told the group of each consumer's handshake, to record the group and its retry topic. */
    void recordGroupsWith(GroupRecorder recorder) {
        this.groupRecorder = recorder;
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
            messageAt, messageById));
    }

    /** Records the client's settings (a Telemetry handshake) and registers it; returns its session. */
    Session settle(ClientMetadata metadata, Settings settings) {
        GrpcClientConnection connection = connection(metadata.clientId(), metadata.remoteAddress());
        Session session = new Session(metadata, settings, connection, GrpcConsumerMembers.isConsumer(settings)
            ? GrpcConsumerMembers.subscriptions(settings, clients.now()) : java.util.List.of());
        sessions.put(metadata.clientId(), session);
        if (GrpcConsumerMembers.isConsumer(settings)) {
            String group = GrpcConsumerMembers.group(settings);
            try {
                // the admin tools find a group's brokers by the route of its %RETRY% topic
                groupRecorder.record(group);
            } catch (java.io.IOException e) {
                org.slf4j.LoggerFactory.getLogger(GrpcClients.class).warn("consumer group {} is served from memory:"
                    + " persisting its subscription group or retry topic failed ({})", group, e.toString());
            }
            connection.consumer(new ClientCommandReplies.ConsumerFacts(
                GrpcConsumerMembers.consumeType(settings.getClientType()), metadata.version(), clients.now(),
                session.subscriptions()));
        }
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
        if (s != null && GrpcConsumerMembers.isConsumer(s.settings())) {
            clients.unregisterConsumer(GrpcConsumerMembers.group(s.settings()), clientId);
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
        } else if (GrpcConsumerMembers.isConsumer(s.settings())) {
            clients.registerConsumer(GrpcConsumerMembers.group(s.settings()),
                GrpcConsumerMembers.member(s.metadata(), s.settings(), s.connection(), clients.now()), s.subscriptions());
        }
    }
}
