package io.basalt.ha.slave;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.basalt.ha.ReplicaProtocol;

/**
 * Where a slave finds its master and which protocol the master speaks, asked by {@link HAClient}
 * before each connection. The broker's implementation reads the NameServers' answers to its
 * registration ({@code masterAddr}, {@code haServerAddr}, as RocketMQ's slave does) and asks the
 * master's remoting port with GET_HA_PROTOCOLS (a RocketMQ broker answers REQUEST_CODE_NOT_SUPPORTED:
 * classic). {@link #NONE} knows nothing: the configured HA address and Basalt's wire.
 *
 * <p>Threads: any; {@link #protocols} must not block.
 */
public interface MasterLocator {
    /** No NameServers: no remoting address, no HA address. */
    MasterLocator NONE = new MasterLocator() {
        @Override
        public boolean locates() {
            return false;
        }

        @Override
        public Optional<String> masterAddr() {
            return Optional.empty();
        }

        @Override
        public Optional<InetSocketAddress> haServerAddr() {
            return Optional.empty();
        }

        @Override
        public CompletableFuture<Set<ReplicaProtocol>> protocols(String masterAddr) {
            return CompletableFuture.failedFuture(new IllegalStateException("no master known"));
        }
    };

    /**
     * Whether this locator can name the master (the broker has NameServers). When it can, a slave waits
     * for the master's remoting address and asks it which protocol it speaks; when it cannot, it speaks
     * Basalt's wire to haMasterAddress.
     */
    boolean locates();

    /** The master's remoting address (host:port), empty while unknown. */
    Optional<String> masterAddr();

    /** The master's HA address, empty while unknown; used when no haMasterAddress is configured. */
    Optional<InetSocketAddress> haServerAddr();

    /** The protocols the broker at remoting address {@code masterAddr} speaks; fails when it cannot be asked. */
    CompletableFuture<Set<ReplicaProtocol>> protocols(String masterAddr);
}
