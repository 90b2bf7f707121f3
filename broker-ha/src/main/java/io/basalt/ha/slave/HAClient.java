package io.basalt.ha.slave;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.ha.EpochFile;
import io.basalt.ha.HAAuth;
import io.basalt.ha.HAConfig;
import io.basalt.ha.HAWire;
import io.basalt.ha.Peer;
import io.basalt.ha.ReplicaProtocol;
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
 * The slave side of replication. Before each connection it finds its master and the protocol to
 * speak ({@link MasterLocator}): the HA address is {@code haMasterAddress} when configured, else the
 * {@code haServerAddr} the NameServers returned (until they name one, it waits and replicates
 * nothing); the protocol is Basalt's wire ({@link HAWire}) when the master's remoting port answers
 * GET_HA_PROTOCOLS with it or when no remoting address is known, and RocketMQ's classic protocol when
 * the master answers REQUEST_CODE_NOT_SUPPORTED (a RocketMQ broker).
 *
 * <p>Basalt's wire: says HELLO with its epoch and CommitLog end, truncates a divergent tail back to
 * the last offset both histories share, asks for the rest. Classic: reports its CommitLog end and
 * takes what follows (no epochs: a divergent tail cannot be detected). Both then append each
 * received chunk at exactly the offset it belongs to, through the store's replica append; the
 * store's dispatcher builds ConsumeQueues and the index from those bytes.
 *
 * <p>States: {@code READY} (not connected; retries every reconnectIntervalMs) → {@code HANDSHAKE}
 * (HELLO sent; Basalt only) → {@code TRANSFER} (appending, reporting) → back to {@code READY} on any
 * error, gap or mismatch (the next connection re-synchronises), {@code SHUTDOWN} at the end. Each
 * transition goes through {@link #state} and is logged with its reason.
 *
 * <p>Threads: one event-loop thread ({@code HAClient}) does everything; {@link #start()},
 * {@link #shutdown()} and the getters may be called from any thread.
 */
public final class HAClient implements ReplicaClient {
    private static final Logger LOG = LoggerFactory.getLogger(HAClient.class);

    public enum State { READY, HANDSHAKE, TRANSFER, SHUTDOWN }

    /** How often a slave waiting for its NameServers to name the master looks again (no network involved), ms. */
    private static final long LOCATE_POLL_MS = 100;

    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    /** {@code haAuthSecret}'s proofs; null when not set. */
    private final HAAuth auth;
    /** {@code haTlsEnable}: the TLS of the connection to the master; null: plaintext. */
    private volatile io.netty.handler.ssl.SslContext tlsContext;
    private final Peer self;
    /** haMasterAddress, null when the NameServers name the master. */
    private final InetSocketAddress configuredMasterAddress;
    private final MasterLocator locator;
    private final EventLoopGroup group;
    private volatile State state = State.READY;
    private volatile Channel channel;
    private volatile InetSocketAddress masterAddress;
    private volatile ReplicaProtocol protocol;
    private volatile long masterMaxOffsetSeen;
    private volatile long reportedOffset = -1;
    private volatile long requestedOffset = -1;
    private volatile String masterBrokerAddr = "";
    /** Where the next chunk must start, -1 for anywhere (an empty classic slave); client thread only. */
    private long expectedOffset;
    /** What the last failed attempt logged, so that waiting is logged once (client thread only). */
    private String lastWait = "";

    /** A slave of the master at {@code masterAddress}, speaking Basalt's wire. */
    public HAClient(MessageStore store, EpochFile epochs, HAConfig config, Peer self, InetSocketAddress masterAddress) {
        this(store, epochs, config, self, masterAddress, MasterLocator.NONE);
    }

    /**
     * @param masterAddress the configured haMasterAddress, or null to take the master's HA address from
     *                      {@code locator}
     * @param locator       names the master's remoting address and the protocol it speaks
     */
    public HAClient(MessageStore store, EpochFile epochs, HAConfig config, Peer self, InetSocketAddress masterAddress,
                    MasterLocator locator) {
        this.store = store;
        this.self = self;
        this.epochs = epochs;
        this.config = config;
        this.auth = config.haAuthSecret().map(secret -> new HAAuth(secret, System::currentTimeMillis)).orElse(null);
        this.configuredMasterAddress = masterAddress;
        this.masterAddress = masterAddress;
        this.locator = locator;
        this.group = new MultiThreadIoEventLoopGroup(1, DaemonThreads.factory(index -> "HAClient", FastThreadLocalThread::new),
            NioIoHandler.newFactory());
    }

    /** Connects to the master with TLS ({@code haTlsEnable}); set before {@link #start()}. */
    public void useTls(io.netty.handler.ssl.SslContext context) {
        this.tlsContext = context;
    }

    /** Starts connecting (and reconnecting) to the master. The store must be running. */
    @Override
    public void start() {
        LOG.info("HAClient replicating from master {} (epoch {}, local CommitLog [{}, {}))",
            configuredMasterAddress != null ? configuredMasterAddress : "named by the NameServers (haServerAddr)",
            epochs.lastEpoch(), store.getMinPhyOffset(), store.getMaxPhyOffset());
        group.execute(this::locateAndConnect);
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
        ReplicaProtocol p = protocol;
        return p == null ? "" : p.name();
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

    /** The HA address to connect to now: the configured one, else the NameServers'. */
    private Optional<InetSocketAddress> targetAddress() {
        return configuredMasterAddress != null ? Optional.of(configuredMasterAddress) : locator.haServerAddr();
    }

    /** Finds the master and its protocol, then connects. Client thread. */
    private void locateAndConnect() {
        if (state == State.SHUTDOWN) {
            return;
        }
        Optional<InetSocketAddress> target = targetAddress();
        if (target.isEmpty()) {
            waiting("no haMasterAddress configured and the NameServers name no master (haServerAddr) yet");
            scheduleLocate();
            return;
        }
        InetSocketAddress address = target.get();
        Optional<String> remoting = locator.masterAddr();
        if (remoting.isEmpty()) {
            if (locator.locates()) {
                waiting("the NameServers name no master (masterAddr) yet to ask which HA protocol it speaks");
                scheduleLocate();
            } else {
                // no NameServers, nobody to ask: Basalt's wire
                connect(address, ReplicaProtocol.BASALT, "");
            }
            return;
        }
        String masterAddr = remoting.get();
        locator.protocols(masterAddr).whenComplete((spoken, error) -> group.execute(() -> {
            if (state == State.SHUTDOWN) {
                return;
            }
            if (error != null) {
                waiting("cannot ask master " + masterAddr + " which HA protocols it speaks: " + error);
                scheduleReconnect();
            } else if (spoken.contains(ReplicaProtocol.BASALT)) {
                connect(address, ReplicaProtocol.BASALT, masterAddr);
            } else if (spoken.contains(ReplicaProtocol.CLASSIC)) {
                connect(address, ReplicaProtocol.CLASSIC, masterAddr);
            } else {
                waiting("master " + masterAddr + " speaks no HA protocol this slave does (" + spoken + ")");
                scheduleReconnect();
            }
        }));
    }

    private void waiting(String why) {
        if (!why.equals(lastWait)) {
            LOG.warn("HAClient waiting: {}", why);
            lastWait = why;
        }
    }

    private void connect(InetSocketAddress address, ReplicaProtocol speak, String masterAddr) {
        masterAddress = address;
        if (protocol != speak) {
            if (speak == ReplicaProtocol.CLASSIC) {
                LOG.info("HAClient: master {} ({}) is a RocketMQ broker: speaking the classic protocol, without epochs"
                    + " (a log that diverged from the master's is not detected)", masterAddr, address);
            } else {
                LOG.info("HAClient: master {} speaks Basalt's HA protocol", masterAddr.isEmpty() ? address : masterAddr);
            }
        }
        protocol = speak;
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.haHousekeepingInterval())
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    io.netty.handler.ssl.SslContext tls = tlsContext;
                    if (tls != null) {
                        // haTlsEnable: TLS to the master's HA port, under the proof and the protocol
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                    }
                    if (auth != null) {
                        // haAuthSecret: the proof goes first, and only a master that proves it too is followed
                        ch.pipeline().addLast(auth.proof());
                    }
                    ch.pipeline().addLast(new IdleStateHandler(config.haHousekeepingInterval(),
                        config.haSendHeartbeatInterval(), 0, TimeUnit.MILLISECONDS),
                        speak == ReplicaProtocol.CLASSIC ? new ClassicHandler(address, masterAddr) : new BasaltHandler(address));
                }
            });
        b.connect(address).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                waiting("cannot connect to master " + address + ": " + f.cause());
                scheduleReconnect();
                return;
            }
            lastWait = "";
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

    /** Looks for the master again soon: the NameServers' answer is local state, so waiting for it costs nothing. */
    private void scheduleLocate() {
        if (state != State.SHUTDOWN && !group.isShuttingDown()) {
            group.schedule(this::locateAndConnect, Math.min(LOCATE_POLL_MS, config.reconnectIntervalMs()), TimeUnit.MILLISECONDS);
        }
    }

    private void scheduleReconnect() {
        if (state != State.SHUTDOWN && !group.isShuttingDown()) {
            group.schedule(this::locateAndConnect, config.reconnectIntervalMs(), TimeUnit.MILLISECONDS);
        }
    }

    /** The stream both protocols share once streaming: data frames in, offset reports out. Client thread only. */
    private abstract class StreamHandler extends ByteToMessageDecoder {
        final InetSocketAddress address;

        StreamHandler(InetSocketAddress address) {
            this.address = address;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            try {
                if (state == State.HANDSHAKE) {
                    handshake(ctx, in);
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

        abstract void handshake(ChannelHandlerContext ctx, ByteBuf in) throws IOException;

        /** Checks a heartbeat's offset (the next offset the master will send); true when it is acceptable. */
        abstract boolean heartbeatMatches(long offset);

        /** Starts streaming from {@code start}: reports it; {@code anywhere} accepts any first chunk offset. */
        final void beginTransfer(ChannelHandlerContext ctx, long start, boolean anywhere, String reason) {
            ctx.writeAndFlush(ctx.alloc().buffer(HAWire.REPORT_LENGTH).writeLong(start));
            reportedOffset = start;
            requestedOffset = start;
            expectedOffset = anywhere ? -1 : start;
            state(State.TRANSFER, reason);
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
                    if (!heartbeatMatches(offset)) {
                        drop(ctx, "heartbeat at offset " + offset + " where " + expectedOffset + " was due");
                        return;
                    }
                    masterMaxOffsetSeen = Math.max(masterMaxOffsetSeen, offset);
                    continue;
                }
                if (expectedOffset >= 0 && offset != expectedOffset) {
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
                } else if (configuredMasterAddress == null && !targetAddress().map(address::equals).orElse(true)) {
                    drop(ctx, "the NameServers name another master: " + targetAddress().get());
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

        final void drop(ChannelHandlerContext ctx, String reason) {
            LOG.error("HAClient dropping the connection to {}: {}", address, reason);
            state(State.READY, reason);
            ctx.close();
        }
    }

    /** Basalt's wire: HELLO/WELCOME with epochs, then the stream. */
    private final class BasaltHandler extends StreamHandler {
        BasaltHandler(InetSocketAddress address) {
            super(address);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            long max = store.getMaxPhyOffset();
            ctx.writeAndFlush(HAWire.encodeHello(ctx.alloc(), new HAWire.Hello(epochs.lastEpoch(), max, self.brokerId(),
                self.brokerAddr())));
            state(State.HANDSHAKE, "connected to " + address + ", HELLO with max offset " + max);
            super.channelActive(ctx);
        }

        @Override
        void handshake(ChannelHandlerContext ctx, ByteBuf in) throws IOException {
            HAWire.Welcome welcome = HAWire.tryDecodeWelcome(in);
            if (welcome != null) {
                onWelcome(ctx, welcome);
            }
        }

        @Override
        boolean heartbeatMatches(long offset) {
            return true;
        }

        private void onWelcome(ChannelHandlerContext ctx, HAWire.Welcome w) throws IOException {
            masterMaxOffsetSeen = w.masterMaxOffset();
            long ourEpoch = epochs.lastEpoch();
            if (w.masterEpoch() < ourEpoch) {
                drop(ctx, "master " + address + " is at epoch " + w.masterEpoch() + ", older than ours " + ourEpoch
                    + " (a deposed master); refusing it");
                return;
            }
            long localMax = store.getMaxPhyOffset();
            long common = EpochFile.lastCommonOffset(w.epochs(), w.masterMaxOffset(), epochs.entries(), localMax);
            if (common < 0) {
                drop(ctx, "no common history with master " + address + " (epochs " + w.epochs() + " vs ours "
                    + epochs.entries() + "); wipe this slave's store to resynchronise");
                return;
            }
            if (localMax > common) {
                LOG.warn("HAClient: local CommitLog [{}, {}) diverges from master {} after offset {}; truncating",
                    store.getMinPhyOffset(), localMax, address, common);
                store.replicatedLog().truncateTo(common);
            }
            long start = store.getMaxPhyOffset();
            if (isEmpty()) {
                long fileSize = store.replicatedLog().fileSize();
                start = config.syncFromLastFile() ? w.masterMaxOffset() - w.masterMaxOffset() % fileSize
                    : w.masterMinOffset();
            } else if (start < w.masterMinOffset()) {
                drop(ctx, "local CommitLog ends at " + start + ", before the master's oldest offset "
                    + w.masterMinOffset() + "; wipe this slave's store to resynchronise");
                return;
            }
            epochs.replaceWith(w.epochs());
            masterBrokerAddr = w.brokerAddr();
            beginTransfer(ctx, start, false, "master epoch " + w.masterEpoch() + " [" + w.masterMinOffset() + ", "
                + w.masterMaxOffset() + "), requesting from " + start);
        }
    }

    /**
     * RocketMQ's classic protocol: no handshake; the first report (the local CommitLog end) is the
     * request. As RocketMQ's slave does, an empty slave takes the first chunk wherever the master
     * starts it, and a slave with data closes the connection on a frame, heartbeat or data, that does
     * not start at its CommitLog end.
     */
    private final class ClassicHandler extends StreamHandler {
        private final String masterAddr;

        ClassicHandler(InetSocketAddress address, String masterAddr) {
            super(address);
            this.masterAddr = masterAddr;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            long max = store.getMaxPhyOffset();
            masterBrokerAddr = masterAddr;
            beginTransfer(ctx, max, isEmpty(), "connected to RocketMQ master " + masterAddr + " (" + address
                + "), classic protocol, reporting max offset " + max);
            super.channelActive(ctx);
        }

        @Override
        void handshake(ChannelHandlerContext ctx, ByteBuf in) {
            throw new IllegalStateException("the classic protocol has no handshake");
        }

        @Override
        boolean heartbeatMatches(long offset) {
            return expectedOffset < 0 || offset == expectedOffset;
        }
    }

    /** True for a store that never held data (it may start wherever its master begins). */
    private boolean isEmpty() {
        return store.replicatedLog().committedOffset() == 0 && store.getMinPhyOffset() == 0;
    }
}
