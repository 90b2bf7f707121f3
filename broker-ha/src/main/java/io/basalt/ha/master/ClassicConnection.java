package io.basalt.ha.master;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;

/**
 * A RocketMQ slave's connection on the master, in RocketMQ's classic protocol: no handshake; the
 * slave's first 8-byte report is the offset it asks for. An empty slave (report 0) gets the
 * master's oldest retained offset, or with {@code syncFromLastFile=true} the start of the master's
 * last CommitLog file (RocketMQ's master always does the latter); any other request must lie in the
 * master's [min, max] and is refused otherwise (RocketMQ would send heartbeats forever,
 * apache/rocketmq#3388). Then the shared stream ({@link StreamConnection}); the slave's
 * acknowledgements count for SYNC_MASTER like a Basalt slave's.
 *
 * <p>The classic protocol carries no epochs: such a slave cannot be told that its log diverged from
 * this master's, which is logged when it connects.
 */
final class ClassicConnection extends StreamConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicConnection.class);
    static final String PROTOCOL = "CLASSIC";

    private boolean emptySlave;

    ClassicConnection(HAService service, Channel channel) {
        super(service, channel, State.WAIT_START);
        LOG.info("HA connection {}: a classic RocketMQ replica (no epochs: its log is not checked for divergence"
            + " from this master's)", remote);
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    @Override
    public long brokerId() {
        return -1;
    }

    @Override
    public String brokerAddr() {
        return "";
    }

    @Override
    void handshake(ChannelHandlerContext ctx, ByteBuf in) {
        throw new IllegalStateException("the classic protocol has no handshake");
    }

    @Override
    long startOffset(long requested) {
        long min = store.getMinPhyOffset();
        long max = store.getMaxPhyOffset();
        if (requested == 0) {
            emptySlave = true;
            if (service.config().syncFromLastFile()) {
                long fileSize = store.replicatedLog().fileSize();
                return Math.max(min, max - max % fileSize);
            }
            return min;
        }
        if (requested < min || requested > max) {
            refuse("requested offset " + requested + " is not held here [" + min + ", " + max + "]", true);
            return -1;
        }
        return requested;
    }

    /** An empty slave goes on reporting 0 until its first chunk lands when it was sent a later start. */
    @Override
    boolean ignoresReport(long report) {
        return emptySlave && report == 0;
    }
}
