package io.basalt.broker.processor;

import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.MessageStore;

/**
 * What the request processors share: the broker's identity and settings they need, and its state.
 *
 * @param storeHost           this broker's client-reachable address (brokerIP1:listenPort): the store host of
 *                            every record, so offset message ids point back here
 * @param maxMessageSize      largest body accepted, bytes
 */
public record BrokerContext(RouteBodies.BrokerIdentity identity, InetSocketAddress storeHost, int maxMessageSize,
                            BooleanSupplier writability, MessageStore store, TopicConfigManager topics,
                            ConsumerOffsetManager offsets, ClientManager clients, QueueLockManager locks,
                            PullRequestHoldService pullHold, BrokerCounters counters) {

    /** Whether producers' writes are accepted now: a running, unfenced master (a slave or a deposed master refuses). */
    public boolean writable() {
        return writability.getAsBoolean();
    }
}
