package io.basalt.broker.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The producer connections replies are pushed on: found by client id while the client produces here, on an open connection. */
class ClientManagerTest {
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ClientManager clients = new ClientManager(120_000, clock::get);

    @Test
    void aProducersConnectionIsFoundByItsClientId() {
        Connection first = new Connection();
        clients.registerProducer("pg", "client-1", first);
        assertEquals(Optional.of(first), clients.producerConnection("client-1"));
        assertTrue(clients.producerConnection("client-2").isEmpty());

        Connection reconnected = new Connection();
        clients.registerProducer("pg", "client-1", reconnected);
        assertEquals(Optional.of(reconnected), clients.producerConnection("client-1"), "the latest heartbeat's connection");
    }

    @Test
    void aClosedConnectionIsNotFound() {
        Connection connection = new Connection();
        clients.registerProducer("pg", "client-1", connection);
        connection.close();
        assertTrue(clients.producerConnection("client-1").isEmpty());
    }

    @Test
    void theConnectionIsKeptUntilTheClientLeftItsLastProducerGroup() {
        Connection connection = new Connection();
        clients.registerProducer("pg", "client-1", connection);
        clients.registerProducer("CLIENT_INNER_PRODUCER", "client-1", connection);

        clients.unregisterProducer("pg", "client-1");
        assertEquals(Optional.of(connection), clients.producerConnection("client-1"));
        clients.unregisterProducer("CLIENT_INNER_PRODUCER", "client-1");
        assertTrue(clients.producerConnection("client-1").isEmpty());
    }

    @Test
    void aSilentProducerIsForgottenWithItsConnection() {
        clients.registerProducer("pg", "client-1", new Connection());
        clock.addAndGet(120_001);
        assertEquals(1, clients.scanExpired());
        assertTrue(clients.producerConnection("client-1").isEmpty());
    }

    /** A connection that is open until closed. */
    private static final class Connection implements RemotingConnection {
        private volatile boolean active = true;

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 50000);
        }

        @Override
        public boolean isActive() {
            return active;
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
