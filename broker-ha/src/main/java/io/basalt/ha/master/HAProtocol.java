package io.basalt.ha.master;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * One replication protocol the master's HA port speaks. A new connection's first bytes go to each
 * protocol of the {@link HAProtocolDispatcher}'s ordered list in turn; the first that claims them
 * gets the connection.
 *
 * <p>Implementations are stateless and thread-safe; {@link #open} runs on the connection's event loop.
 */
interface HAProtocol {
    /** What a protocol makes of a connection's first bytes. */
    enum Match {
        /** The bytes start this protocol's first message: this protocol takes the connection. */
        YES,
        /** They cannot start this protocol's first message: ask the next protocol. */
        NO,
        /** Too few bytes to tell; the dispatcher waits for more before asking anyone after this one. */
        NEED_MORE
    }

    /** The name slave status and runtime info show (for example {@code BASALT}, {@code CLASSIC}). */
    String name();

    /** Looks at {@code firstBytes} without moving its reader index. */
    Match match(ByteBuf firstBytes);

    /** The pipeline handler serving a connection this protocol matched; it reads the first bytes itself. */
    ReplicaConnection open(HAService service, Channel channel);
}
