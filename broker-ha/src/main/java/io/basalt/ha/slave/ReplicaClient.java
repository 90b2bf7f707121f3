package io.basalt.ha.slave;

import java.net.InetSocketAddress;

/**
 * A slave's replication client, whatever protocol it speaks to its master: what
 * {@link io.basalt.ha.Replication} and the broker need to run it and report on it. Other clients
 * (RocketMQ's classic and AutoSwitch protocols) plug in beside {@link HAClient} (Basalt's wire).
 *
 * <p>Threads: every method may be called from any thread.
 */
public interface ReplicaClient {
    /** Starts connecting (and reconnecting) to the master. The store must be running. */
    void start();

    /** Closes the connection and stops reconnecting; waits for the client's thread. Idempotent. */
    void shutdown();

    /** The client's state for runtime info (for example {@code READY}, {@code TRANSFER}). */
    String stateName();

    /** The protocol spoken to the master now or last ({@code BASALT}, {@code CLASSIC}), empty before any. */
    String protocol();

    /** End of the local CommitLog (what this slave holds). */
    long maxOffset();

    /** The newest master CommitLog end this slave heard of. */
    long masterMaxOffsetSeen();

    /** The master's remoting address (host:port) while streaming from it, null otherwise. */
    String masterBrokerAddr();

    /** The remoting address (host:port) of the master this slave last streamed from, empty before any. */
    String lastMasterBrokerAddr();

    /** The master's HA address this client follows, null while it is not known yet. */
    InetSocketAddress masterAddress();
}
