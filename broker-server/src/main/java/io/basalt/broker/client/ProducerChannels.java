package io.basalt.broker.client;

import java.net.SocketAddress;
import java.util.Optional;

import io.basalt.remoting.processor.RemotingConnection;

/**
 * The producers' connections a broker may send a request to (RocketMQ's {@code ProducerManager}): a transaction
 * back-check goes to a live producer of the half message's group. Thread-safe.
 */
public interface ProducerChannels {

    /**
     * A live connection of a producer of {@code producerGroup} to ask about a transaction: the connection whose
     * remote address is {@code producedFrom} (the half message's born host: the client that sent it) when it is
     * still registered and active, else the group's live connections in turn. Empty when the group has none.
     */
    Optional<RemotingConnection> checkChannel(String producerGroup, SocketAddress producedFrom);
}
