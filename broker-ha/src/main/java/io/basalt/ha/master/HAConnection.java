package io.basalt.ha.master;

import io.basalt.ha.HAWire;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;

/**
 * A Basalt slave's connection on the master (wire format: {@link HAWire}): HELLO with the slave's
 * epoch and identity, WELCOME with the master's history, then the slave's start offset, which must
 * lie in the master's [min, max]; then the shared stream ({@link StreamConnection}). A HELLO with a
 * newer epoch than the master's fences this master.
 */
final class HAConnection extends StreamConnection {
    static final String PROTOCOL = "BASALT";

    private volatile long brokerId = -1;
    private volatile String brokerAddr = "";

    HAConnection(HAService service, Channel channel) {
        super(service, channel, State.HANDSHAKE);
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    @Override
    public long brokerId() {
        return brokerId;
    }

    @Override
    public String brokerAddr() {
        return brokerAddr;
    }

    @Override
    void handshake(ChannelHandlerContext ctx, ByteBuf in) {
        HAWire.Hello hello = HAWire.tryDecodeHello(in);
        if (hello == null) {
            return;
        }
        long epoch = service.epoch();
        if (hello.slaveEpoch() > epoch) {
            service.fence("slave " + remote + " follows epoch " + hello.slaveEpoch() + ", newer than ours " + epoch);
            refuse("slave follows a newer master (epoch " + hello.slaveEpoch() + " > " + epoch + ")", true);
            return;
        }
        brokerId = hello.brokerId();
        brokerAddr = hello.brokerAddr();
        HAWire.Welcome welcome = new HAWire.Welcome(epoch, store.getMinPhyOffset(), store.getMaxPhyOffset(),
            service.epochEntries(), service.self().brokerAddr());
        ctx.writeAndFlush(HAWire.encodeWelcome(ctx.alloc(), welcome));
        state(State.WAIT_START, "HELLO: slave " + hello.brokerId() + "@" + hello.brokerAddr() + ", epoch "
            + hello.slaveEpoch() + ", max offset " + hello.slaveMaxOffset());
    }

    @Override
    long startOffset(long requested) {
        long min = store.getMinPhyOffset();
        long max = store.getMaxPhyOffset();
        if (requested < min || requested > max) {
            refuse("requested offset " + requested + " is not held here [" + min + ", " + max + "]", true);
            return -1;
        }
        return requested;
    }
}
