package io.basalt.ha.slave;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.ha.EpochFile;
import io.basalt.ha.HAConfig;
import io.basalt.ha.HAWire;
import io.basalt.ha.Peer;
import io.basalt.store.MessageStore;
import io.basalt.store.spi.ReplicaAppend;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * The slave side of replication (wire format: {@link HAWire}). Connects to the master's HA port,
 * says HELLO with its epoch and CommitLog end, truncates a divergent tail back to the last offset
 * both histories share, asks for the rest and appends each received chunk at exactly the offset it
 * belongs to. Its store's dispatcher builds ConsumeQueues and the index from those bytes.
 *
 * <p>States: {@code READY} (not connected; retries every reconnectIntervalMs) → {@code HANDSHAKE}
 * (HELLO sent) → {@code TRANSFER} (appending, reporting) → back to {@code READY} on any error, gap or
 * mismatch (the next handshake re-synchronises), {@code SHUTDOWN} at the end. Each transition goes
 * through {@link #state} and is logged with its reason.
 *
 * <p>Threads: one event-loop thread ({@code HAClient}) does everything; {@link #start()},
 * {@link #shutdown()} and the getters may be called from any thread.
 */
public final class HAClient implements ReplicaClient {
    private static final Logger LOG = LoggerFactory.getLogger(HAClient.class);

    public enum State { READY, HANDSHAKE, TRANSFER, SHUTDOWN }

    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    private final Peer self;
    private final InetSocketAddress masterAddress;
    private final EventLoopGroup group;
    private volatile State state = State.READY;
    private volatile Channel channel;
    private volatile long masterMaxOffsetSeen;
    private volatile long reportedOffset = -1;
    private volatile long requestedOffset = -1;
    private volatile String masterBrokerAddr = "";
    /** Where the next chunk must start (client thread only). */
    private long expectedOffset;

    public HAClient(MessageStore store, EpochFile epochs, HAConfig config, Peer self, InetSocketAddress masterAddress) {
        this.store = store;
        this.self = self;
        this.epochs = epochs;
        this.config = config;
        this.masterAddress = masterAddress;
        this.group = new MultiThreadIoEventLoopGroup(1, DaemonThreads.factory(index -> "HAClient", FastThreadLocalThread::new),
            NioIoHandler.newFactory());
    }

    /** Starts connecting (and reconnecting) to the master. The store must be running. */
    @Override
    public void start() {
        LOG.info("HAClient replicating from master {} (epoch {}, local CommitLog [{}, {}))", masterAddress,
            epochs.lastEpoch(), store.getMinPhyOffset(), store.getMaxPhyOffset());
        group.execute(this::connect);
    }

    /** Closes the connection and stops reconnecting; waits for the client thread. Idempotent. */
    @Override
    public void shutdown() {
        if (state == State.SHUTDOWN) {
            return;
        }
        group.execute(() -> {
            state(State.SHUTDOWN, "shutdown");
            Channel c = channel;
            if (c != null) {
                c.close();
            }
        });
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        state = State.SHUTDOWN;
    }

    public State state() {
        return state;
    }

    @Override
    public String stateName() {
        return state.name();
    }

    @Override
    public String protocol() {
        return "BASALT";
    }

    /** End of the local CommitLog (what this slave holds). */
    @Override
    public long maxOffset() {
        return store.getMaxPhyOffset();
    }

    /** The newest master CommitLog end this slave heard of (handshake, heartbeats, data). */
    @Override
    public long masterMaxOffsetSeen() {
        return masterMaxOffsetSeen;
    }

    /** The offset the last handshake asked the master to stream from, -1 before the first. */
    public long lastRequestedOffset() {
        return requestedOffset;
    }

    /** The master's remoting address (host:port) while streaming from it, null otherwise. */
    @Override
    public String masterBrokerAddr() {
        return state == State.TRANSFER && !masterBrokerAddr.isEmpty() ? masterBrokerAddr : null;
    }

    /** The remoting address (host:port) of the master this slave last streamed from, empty before any. */
    @Override
    public String lastMasterBrokerAddr() {
        return masterBrokerAddr;
    }

    /** The epoch of the master this slave follows. */
    public long epoch() {
        return epochs.lastEpoch();
    }

    @Override
    public InetSocketAddress masterAddress() {
        return masterAddress;
    }

    private void state(State next, String reason) {
        if (state == State.SHUTDOWN) {
            return;
        }
        LOG.info("HAClient {} -> {} ({})", state, next, reason);
        state = next;
    }

    private void connect() {
        if (state == State.SHUTDOWN) {
            return;
        }
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.haHousekeepingInterval())
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new IdleStateHandler(config.haHousekeepingInterval(),
                        config.haSendHeartbeatInterval(), 0, TimeUnit.MILLISECONDS), new Handler());
                }
            });
        b.connect(masterAddress).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                LOG.warn("HAClient cannot connect to master {}: {}", masterAddress, f.cause().toString());
                scheduleReconnect();
                return;
            }
            channel = f.channel();
            f.channel().closeFuture().addListener(c -> {
                channel = null;
                reportedOffset = -1;
                if (state != State.SHUTDOWN) {
                    state(State.READY, "connection to master closed");
                    scheduleReconnect();
                }
            });
        });
    }

    private void scheduleReconnect() {
        if (state != State.SHUTDOWN && !group.isShuttingDown()) {
            group.schedule(this::connect, config.reconnectIntervalMs(), TimeUnit.MILLISECONDS);
        }
    }

    /** The pipeline end: handshake, then data frames. Client thread only. */
    private final class Handler extends ByteToMessageDecoder {
        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            long max = store.getMaxPhyOffset();
            ctx.writeAndFlush(HAWire.encodeHello(ctx.alloc(), new HAWire.Hello(epochs.lastEpoch(), max, self.brokerId(),
                self.brokerAddr())));
            state(State.HANDSHAKE, "connected to " + masterAddress + ", HELLO with max offset " + max);
            super.channelActive(ctx);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            try {
                if (state == State.HANDSHAKE) {
                    HAWire.Welcome welcome = HAWire.tryDecodeWelcome(in);
                    if (welcome != null) {
                        onWelcome(ctx, welcome);
                    }
                } else if (state == State.TRANSFER) {
                    readFrames(ctx, in);
                } else {
                    in.skipBytes(in.readableBytes());
                }
            } catch (HAWire.HAProtocolException e) {
                in.skipBytes(in.readableBytes());
                drop(ctx, "master broke the protocol: " + e.getMessage());
            }
        }

        private void onWelcome(ChannelHandlerContext ctx, HAWire.Welcome w) throws IOException {
            masterMaxOffsetSeen = w.masterMaxOffset();
            long ourEpoch = epochs.lastEpoch();
            if (w.masterEpoch() < ourEpoch) {
                drop(ctx, "master " + masterAddress + " is at epoch " + w.masterEpoch() + ", older than ours " + ourEpoch
                    + " (a deposed master); refusing it");
                return;
            }
            long localMax = store.getMaxPhyOffset();
            long common = EpochFile.lastCommonOffset(w.epochs(), w.masterMaxOffset(), epochs.entries(), localMax);
            if (common < 0) {
                drop(ctx, "no common history with master " + masterAddress + " (epochs " + w.epochs() + " vs ours "
                    + epochs.entries() + "); wipe this slave's store to resynchronise");
                return;
            }
            if (localMax > common) {
                LOG.warn("HAClient: local CommitLog [{}, {}) diverges from master {} after offset {}; truncating",
                    store.getMinPhyOffset(), localMax, masterAddress, common);
                store.replicatedLog().truncateTo(common);
            }
            long start = store.getMaxPhyOffset();
            boolean empty = store.replicatedLog().committedOffset() == 0 && store.getMinPhyOffset() == 0;
            if (empty) {
                long fileSize = store.replicatedLog().fileSize();
                start = config.syncFromLastFile() ? w.masterMaxOffset() - w.masterMaxOffset() % fileSize
                    : w.masterMinOffset();
            } else if (start < w.masterMinOffset()) {
                drop(ctx, "local CommitLog ends at " + start + ", before the master's oldest offset "
                    + w.masterMinOffset() + "; wipe this slave's store to resynchronise");
                return;
            }
            epochs.replaceWith(w.epochs());
            ctx.writeAndFlush(ctx.alloc().buffer(HAWire.REPORT_LENGTH).writeLong(start));
            reportedOffset = start;
            requestedOffset = start;
            expectedOffset = start;
            masterBrokerAddr = w.brokerAddr();
            state(State.TRANSFER, "master epoch " + w.masterEpoch() + " [" + w.masterMinOffset() + ", "
                + w.masterMaxOffset() + "), requesting from " + start);
        }

        private void readFrames(ChannelHandlerContext ctx, ByteBuf in) {
            while (in.readableBytes() >= HAWire.DATA_HEADER_LENGTH && state == State.TRANSFER) {
                int at = in.readerIndex();
                long offset = in.getLong(at);
                int size = in.getInt(at + 8);
                if (size < 0 || size > store.replicatedLog().fileSize()) {
                    throw new HAWire.HAProtocolException("frame body size " + size);
                }
                if (in.readableBytes() < HAWire.DATA_HEADER_LENGTH + size) {
                    return;
                }
                in.skipBytes(HAWire.DATA_HEADER_LENGTH);
                if (size == 0) {
                    masterMaxOffsetSeen = Math.max(masterMaxOffsetSeen, offset);
                    continue;
                }
                if (offset != expectedOffset) {
                    in.skipBytes(size);
                    drop(ctx, "chunk at offset " + offset + " (" + size + " bytes) where " + expectedOffset
                        + " was due: a gap or an overlap");
                    return;
                }
                ReplicaAppend appended = store.replicatedLog().appendReplicated(offset, in.nioBuffer(in.readerIndex(), size));
                in.skipBytes(size);
                if (appended != ReplicaAppend.APPENDED) {
                    drop(ctx, "chunk at offset " + offset + " (" + size + " bytes) not appended: " + appended
                        + ", local end " + store.getMaxPhyOffset());
                    return;
                }
                expectedOffset = offset + size;
                masterMaxOffsetSeen = Math.max(masterMaxOffsetSeen, offset + size);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            report(ctx, false);
            super.channelReadComplete(ctx);
        }

        private void report(ChannelHandlerContext ctx, boolean always) {
            if (state != State.TRANSFER) {
                return;
            }
            // An empty slave that started at the master's oldest offset holds nothing below it: until its
            // first chunk lands its log (empty, end 0) begins at the requested offset, which is what it has.
            long max = Math.max(store.getMaxPhyOffset(), requestedOffset);
            if (always || max != reportedOffset) {
                reportedOffset = max;
                ctx.writeAndFlush(ctx.alloc().buffer(HAWire.REPORT_LENGTH).writeLong(max));
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent idle) {
                if (idle.state() == IdleState.READER_IDLE) {
                    drop(ctx, "nothing from the master for " + config.haHousekeepingInterval() + " ms");
                } else {
                    report(ctx, true);
                }
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            drop(ctx, "error: " + cause);
        }

        private void drop(ChannelHandlerContext ctx, String reason) {
            LOG.error("HAClient dropping the connection to {}: {}", masterAddress, reason);
            state(State.READY, reason);
            ctx.close();
        }
    }
}
