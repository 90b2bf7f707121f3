package io.basalt.broker.processor;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.MessageStore;

/**
 * What the request processors share: the broker's identity and settings they need, and its state.
 *
 * @param storeHost           this broker's client-reachable address (brokerIP1:listenPort): the store host of
 *                            every record, so offset message ids point back here
 * @param maxMessageSize      largest body accepted, bytes
 * @param writability         whether producers' writes are accepted now (an unfenced master)
 * @param brokerAddrs         the broker group for route data: brokerId (0 = master) → address
 * @param slaveToSuggest      brokerId of a slave a consumer reading from disk should use, -1 for none
 */
public record BrokerContext(RouteBodies.BrokerIdentity identity, InetSocketAddress storeHost, int maxMessageSize,
                            BooleanSupplier writability, MessageStore store, TopicConfigManager topics,
                            ConsumerOffsetManager offsets, SubscriptionGroupManager subscriptionGroups,
                            ClientManager clients, QueueLockManager locks, PullRequestHoldService pullHold,
                            BrokerCounters counters, Supplier<Map<Long, String>> brokerAddrs, LongSupplier slaveToSuggest) {

    /** A broker without replication: fixed writability, alone in its group, no slave to suggest. */
    public BrokerContext(RouteBodies.BrokerIdentity identity, InetSocketAddress storeHost, int maxMessageSize,
                         boolean writable, MessageStore store, TopicConfigManager topics, ConsumerOffsetManager offsets,
                         SubscriptionGroupManager subscriptionGroups, ClientManager clients, QueueLockManager locks,
                         PullRequestHoldService pullHold, BrokerCounters counters) {
        this(identity, storeHost, maxMessageSize, () -> writable, store, topics, offsets, subscriptionGroups, clients,
            locks, pullHold, counters, () -> Map.of(identity.brokerId(), identity.brokerAddr()), () -> -1);
    }

    /** Whether producers' writes are accepted now: a running, unfenced master (a slave or a deposed master refuses). */
    public boolean writable() {
        return writability.getAsBoolean();
    }
}
