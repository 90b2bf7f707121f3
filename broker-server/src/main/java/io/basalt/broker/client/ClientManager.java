package io.basalt.broker.client;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Producers and consumers known from HEART_BEAT, per group, until they unregister or stay silent
 * longer than {@code channelExpiredTimeoutMs} (RocketMQ's 120 s); the producers, with their connections,
 * are kept by a {@link ProducerRegistry}, which also forgets them when their connection closes. Thread-safe.
 */
public final class ClientManager {
    private static final Logger log = LoggerFactory.getLogger(ClientManager.class);

    private final ConcurrentMap<String, ConsumerGroupInfo> consumerGroups = new ConcurrentHashMap<>();
    private final ProducerRegistry producers;
    private final long channelExpiredTimeoutMs;
    private final LongSupplier clock;
    private final Predicate<String> notifyEnabled;

    /** A manager that tells every group of its membership changes. */
    public ClientManager(long channelExpiredTimeoutMs, LongSupplier clock) {
        this(channelExpiredTimeoutMs, clock, group -> true);
    }

    /**
     * @param notifyEnabled whether a group's members are told of its membership changes (the group's
     *                      {@code notifyConsumerIdsChangedEnable}); asked on the thread that changed the group
     */
    public ClientManager(long channelExpiredTimeoutMs, LongSupplier clock, Predicate<String> notifyEnabled) {
        this.channelExpiredTimeoutMs = channelExpiredTimeoutMs;
        this.clock = clock;
        this.notifyEnabled = notifyEnabled;
        this.producers = new ProducerRegistry(clock);
    }

    /** The producer connections per group: what back-checks are sent on and the admin tool lists. */
    public ProducerRegistry producers() {
        return producers;
    }

    public long now() {
        return clock.getAsLong();
    }

    /** Registers (or refreshes) a consumer; true when it is new in its group. */
    public boolean registerConsumer(String group, ConsumerGroupInfo.Member member, List<SubscriptionData> subscriptions) {
        ConsumerGroupInfo info = consumerGroups.computeIfAbsent(group, ConsumerGroupInfo::new);
        boolean added = info.register(member, subscriptions);
        if (added) {
            log.info("consumer {} joined group {} from {}", member.clientId(), group, member.remoteAddress());
            notifyConsumerIdsChanged(info);
        }
        return added;
    }

    /**
     * Tells every member of the group that membership changed (NOTIFY_CONSUMER_IDS_CHANGED, one-way), so
     * they rebalance at once instead of at their next 20 s rebalance; nothing for a group whose
     * {@code notifyConsumerIdsChangedEnable} is false (its members rebalance on their own schedule).
     * RocketMQ skips the notification for such a group on heartbeats and unregistrations but still sends it
     * when a member's channel closes; Basalt keeps quiet for it in every case. Members connected by gRPC are
     * never notified.
     */
    private void notifyConsumerIdsChanged(ConsumerGroupInfo info) {
        if (!notifyEnabled.test(info.groupName())) {
            return;
        }
        for (ConsumerGroupInfo.Member m : info.members()) {
            // a gRPC consumer has no remoting rebalance to trigger and the 5.x protocol no such command
            if (m.connection() == null || !m.connection().isActive() || !m.remoting()) {
                continue;
            }
            RemotingCommand notify = RemotingCommand.request(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED);
            notify.putExtField("consumerGroup", info.groupName());
            m.connection().invokeOneway(notify).whenComplete((v, e) -> {
                if (e != null) {
                    log.debug("notifying {} of group {} changes failed: {}", m.clientId(), info.groupName(), e.toString());
                }
            });
        }
    }

    /** Registers (or refreshes) a producer and remembers the connection its heartbeat came on. */
    public void registerProducer(String group, String clientId, RemotingConnection connection) {
        registerProducer(group, clientId, connection, null, 0);
    }

    /** As {@link #registerProducer(String, String, RemotingConnection)}, with the heartbeat's language and version. */
    public void registerProducer(String group, String clientId, RemotingConnection connection, String language,
        int version) {
        producers.register(group, clientId, connection, language, version);
    }

    /**
     * The open connection of the producer client {@code clientId}, which a reply to its request is pushed
     * on (RocketMQ's ProducerManager.findChannel); empty when no producer of that id is registered here or
     * its connection closed.
     */
    public Optional<RemotingConnection> producerConnection(String clientId) {
        return producers.connectionOf(clientId);
    }

    public void unregisterConsumer(String group, String clientId) {
        ConsumerGroupInfo info = consumerGroups.get(group);
        if (info != null && info.unregister(clientId)) {
            log.info("consumer {} left group {}", clientId, group);
            notifyConsumerIdsChanged(info);
        }
    }

    public void unregisterProducer(String group, String clientId) {
        producers.unregister(group, clientId);
    }

    /** A connection closed: the producers registered on it are forgotten at once. */
    public void connectionClosed(RemotingConnection connection) {
        producers.connectionClosed(connection);
    }

    public ConsumerGroupInfo consumerGroup(String group) {
        return consumerGroups.get(group);
    }

    public Set<String> consumerGroupNames() {
        return Set.copyOf(consumerGroups.keySet());
    }

    public Set<String> producerGroupNames() {
        return producers.groupNames();
    }

    /** Forgets clients silent for longer than the expiry; called periodically. Returns how many were dropped. */
    public int scanExpired() {
        long deadline = now() - channelExpiredTimeoutMs;
        int dropped = 0;
        for (ConsumerGroupInfo info : consumerGroups.values()) {
            int n = info.expire(deadline);
            if (n > 0) {
                log.info("{} silent or disconnected consumers dropped from group {}", n, info.groupName());
                dropped += n;
                notifyConsumerIdsChanged(info);
            }
        }
        return dropped + producers.expire(deadline);
    }
}
