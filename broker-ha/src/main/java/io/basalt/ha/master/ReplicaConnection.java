package io.basalt.ha.master;

import io.netty.channel.ChannelHandler;
import io.netty.util.concurrent.Future;

/**
 * One slave's connection on the master, whatever its protocol: what {@link HAService} needs to list
 * slaves, count their acknowledgements for SYNC_MASTER and wake or close them. The handler is added
 * to the channel's pipeline by the {@link HAProtocolDispatcher} after {@link HAService} registered
 * it.
 *
 * <p>Threads: {@link #wakeup()}, {@link #close} and the getters may be called from any thread.
 */
interface ReplicaConnection extends ChannelHandler {
    /** The protocol's name ({@link HAProtocol#name()}). */
    String protocol();

    /** True while streaming CommitLog data (its acknowledgements count). */
    boolean isTransferring();

    /** The highest CommitLog offset the slave acknowledged (validated). */
    long ackOffset();

    /** The slave's brokerId when its protocol tells it, -1 otherwise. */
    long brokerId();

    /** The slave's remoting address when its protocol tells it, empty otherwise. */
    String brokerAddr();

    /** The slave's address on the HA connection. */
    String remoteAddress();

    /** New CommitLog bytes are readable. */
    void wakeup();

    /** Closes the connection for {@code reason} on its event loop; the future completes once it is closed. */
    Future<?> close(String reason);
}
