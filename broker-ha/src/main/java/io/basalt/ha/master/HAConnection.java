package io.basalt.ha.master;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.HAWire;
import io.basalt.store.MessageStore;
import io.basalt.store.SelectedBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * One slave's connection on the master (wire format: {@link HAWire}). States:
 * {@code HANDSHAKE} (waiting for HELLO) → {@code WAIT_REQUEST} (WELCOME sent, waiting for the start
 * offset) → {@code TRANSFER} (streaming data, reading acks) → {@code CLOSED}; every transition goes
 * through {@link #state} and is logged with its reason.
 *
 * <p>Data goes out straight from the mapped CommitLog files: each frame's body is the
 * {@link SelectedBuffer}'s view wrapped (not copied) in a ByteBuf, released when the socket write
 * completes. Frames are written while the channel is writable; the store's append listener and
 * writability changes restart the pump. Idle writes send a heartbeat; no read for
 * haHousekeepingInterval closes the connection.
 *
 * <p>Threads: everything but {@link #wakeup()}, {@link #close} and the status getters runs on the
 * channel's event loop.
 */
final class HAConnection extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(HAConnection.class);

    enum State { HANDSHAKE, WAIT_REQUEST, TRANSFER, CLOSED }

    private final HAService service;
    private final MessageStore store;
    private final Channel channel;
    private final int batchSize;
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();
    private final String remote;

    private volatile State state = State.HANDSHAKE;
    private volatile long ackOffset;
    private volatile long brokerId = -1;
    private volatile String brokerAddr = "";
    private long nextTransferOffset;

    HAConnection(HAService service, Channel channel) {
        this.service = service;
        this.store = service.store();
        this.channel = channel;
        this.batchSize = service.config().haTransferBatchSize();
        this.remote = String.valueOf(channel.remoteAddress());
    }

    boolean isTransferring() {
        return state == State.TRANSFER;
    }

    long ackOffset() {
        return ackOffset;
    }

    long brokerId() {
        return brokerId;
    }

    String brokerAddr() {
        return brokerAddr;
    }

    String remoteAddress() {
        return remote;
    }

    /** Any thread: new CommitLog bytes are readable. */
    void wakeup() {
        if (state == State.TRANSFER && pumpScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(() -> {
                pumpScheduled.set(false);
                pump();
            });
        }
    }

    /** Any thread. */
    void close(String reason) {
        channel.eventLoop().execute(() -> refuse(reason, false));
    }

    private void state(State next, String reason) {
        LOG.info("HA connection {}: {} -> {} ({})", remote, state, next, reason);
        state = next;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!service.register(this)) {
            ctx.close();
            return;
        }
        LOG.info("HA connection from slave {} accepted", remote);
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            switch (state) {
                case HANDSHAKE -> {
                    HAWire.Hello hello = HAWire.tryDecodeHello(in);
                    if (hello != null) {
                        onHello(ctx, hello);
                    }
                }
                case WAIT_REQUEST -> {
                    if (in.readableBytes() >= HAWire.REPORT_LENGTH) {
                        onRequest(in.readLong());
                    }
                }
                case TRANSFER -> {
                    while (in.readableBytes() >= HAWire.REPORT_LENGTH && state == State.TRANSFER) {
                        onAck(in.readLong());
                    }
                }
                case CLOSED -> in.skipBytes(in.readableBytes());
            }
        } catch (HAWire.HAProtocolException e) {
            in.skipBytes(in.readableBytes());
            refuse(e.getMessage(), true);
        }
    }

    private void onHello(ChannelHandlerContext ctx, HAWire.Hello hello) {
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
        state(State.WAIT_REQUEST, "HELLO: slave " + hello.brokerId() + "@" + hello.brokerAddr() + ", epoch "
            + hello.slaveEpoch() + ", max offset " + hello.slaveMaxOffset());
    }

    private void onRequest(long offset) {
        long min = store.getMinPhyOffset();
        long max = store.getMaxPhyOffset();
        if (offset < min || offset > max) {
            refuse("requested offset " + offset + " is not held here [" + min + ", " + max + "]", true);
            return;
        }
        nextTransferOffset = offset;
        ackOffset = offset;
        state(State.TRANSFER, "slave requested offset " + offset);
        service.onAck();
        pump();
    }

    private void onAck(long ack) {
        long max = store.getMaxPhyOffset();
        if (ack > max) {
            refuse("acknowledged offset " + ack + " is beyond the master's end " + max, true);
        } else if (ack > nextTransferOffset) {
            refuse("acknowledged offset " + ack + " is beyond what was sent (" + nextTransferOffset + ")", true);
        } else if (ack < ackOffset) {
            refuse("acknowledged offset " + ack + " went back from " + ackOffset, true);
        } else {
            ackOffset = ack;
            service.onAck();
        }
    }

    /** Writes frames while the channel accepts them and there is data. Event loop only. */
    private void pump() {
        if (state != State.TRANSFER) {
            return;
        }
        boolean wrote = false;
        while (channel.isWritable() && state == State.TRANSFER) {
            long max = store.getMaxPhyOffset();
            if (nextTransferOffset >= max) {
                break;
            }
            SelectedBuffer selected = store.replicatedLog().select(nextTransferOffset);
            if (selected == null) {
                if (nextTransferOffset < store.getMinPhyOffset()) {
                    refuse("offset " + nextTransferOffset + " was deleted before the slave got it", false);
                }
                break;
            }
            int size = Math.min(selected.size(), batchSize);
            if (size <= 0) {
                selected.release();
                break;
            }
            ByteBuf header = channel.alloc().buffer(HAWire.DATA_HEADER_LENGTH).writeLong(nextTransferOffset).writeInt(size);
            ByteBuf body = Unpooled.wrappedBuffer(selected.buffer().slice(0, size));
            channel.write(header);
            channel.write(body).addListener(f -> selected.release());
            nextTransferOffset += size;
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            pump();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.READER_IDLE) {
                refuse("no report from the slave for " + service.config().haHousekeepingInterval() + " ms", false);
            } else if (idle.state() == IdleState.WRITER_IDLE && state == State.TRANSFER) {
                ctx.writeAndFlush(ctx.alloc().buffer(HAWire.DATA_HEADER_LENGTH).writeLong(nextTransferOffset).writeInt(0));
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.CLOSED) {
            state(State.CLOSED, "connection closed by the slave or the network");
        }
        service.unregister(this);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        refuse("I/O error: " + cause, false);
    }

    /** Closes the connection for {@code reason}; {@code slaveBrokeProtocol} logs it as an error. Event loop only. */
    private void refuse(String reason, boolean slaveBrokeProtocol) {
        if (state == State.CLOSED) {
            return;
        }
        if (slaveBrokeProtocol) {
            LOG.error("HA connection {} refused: {}", remote, reason);
        }
        state(State.CLOSED, reason);
        service.unregister(this);
        channel.close();
    }
}
