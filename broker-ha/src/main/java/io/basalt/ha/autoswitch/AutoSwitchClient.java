package io.basalt.ha.autoswitch;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.ha.EpochFile;
import io.basalt.ha.HAAuth;
import io.basalt.ha.HAConfig;
import io.basalt.ha.Peer;
import io.basalt.ha.slave.ReplicaClient;
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
 * A controller-mode slave (RocketMQ 5's {@code AutoSwitchHAClient} on the wire, {@link AutoSwitchWire}):
 * follows a RocketMQ 5.2.0 master in controller mode, or a Basalt one.
 *
 * <p>Handshake: the slave sends its flags and controller id; the master answers with its epoch list
 * and max offset. With no local epochs the slave reports its CommitLog end (0 when empty: the master
 * starts at its oldest offset, or its last file with {@code syncFromLastFile}). Otherwise the
 * <em>consistent point</em> is found by walking the local epochs newest to oldest for the first one
 * the master also has with the same start offset: {@code min(local end, master end)} of that epoch.
 * The CommitLog is cut there, durably (the cut file zeroed and forced, later files removed and the
 * directory forced) <em>before</em> the offset is reported, and later epoch entries are dropped. No
 * consistent point: this store holds history the master never had; an ERROR names the operator's way
 * out and the handshake is retried every 2 s, without replicating anything.
 *
 * <p>Transfer: each frame must start at the local CommitLog end (else the connection is closed and
 * the next handshake re-synchronises); a frame of a new epoch appends that epoch's entry; the slave's
 * confirmOffset is {@code min(frame confirmOffset, own end)}, and with {@code allAckInSyncStateSet}
 * the store dispatches (shows consumers) only up to it, as RocketMQ's slave does.
 *
 * <p>States: {@code READY} (retrying) → {@code HANDSHAKE} → {@code TRANSFER} → back to {@code READY}
 * on any error, {@code SHUTDOWN} at the end. Threads: one event-loop thread ({@code AutoSwitchHAClient})
 * does everything; {@link #start()}, {@link #shutdown()} and the getters may be called from any thread.
 */
public final class AutoSwitchClient implements ReplicaClient {
    private static final Logger LOG = LoggerFactory.getLogger(AutoSwitchClient.class);
    /** RocketMQ retries a handshake without a consistent point every 2 s. */
    static final long NO_CONSISTENT_POINT_RETRY_MS = 2000;
    public static final String PROTOCOL = "AUTOSWITCH";

    public enum State { READY, HANDSHAKE, TRANSFER, SHUTDOWN }

    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    /** {@code haAuthSecret}'s proofs; null when not set. */
    private final HAAuth auth;
    /** {@code haTlsEnable}: the TLS of the connection to the master; null: plaintext. */
    private volatile io.netty.handler.ssl.SslContext tlsContext;
    private final Peer self;
    private final InetSocketAddress masterAddress;
    private final String masterBrokerAddr;
    private final EventLoopGroup group;
    private volatile State state = State.READY;
    private volatile Channel channel;
    private volatile long masterMaxOffsetSeen;
    private volatile long confirmOffset;
    private volatile String lastRefusal;
    private volatile long handshakes;
    /** Client thread only. */
    private long reportedOffset = -1;
    private int currentEpoch = -1;
    private long nextReconnectDelayMs;

    /**
     * @param self             this slave: its controller broker id goes into the handshake
     * @param masterAddress    the master's HA address
     * @param masterBrokerAddr the master's remoting address (host:port) if known, else null
     */
    public AutoSwitchClient(MessageStore store, EpochFile epochs, HAConfig config, Peer self,
                            InetSocketAddress masterAddress, String masterBrokerAddr) {
        this.store = store;
        this.epochs = epochs;
        this.config = config;
        this.auth = config.haAuthSecret().map(secret -> new HAAuth(secret, System::currentTimeMillis)).orElse(null);
        this.self = self;
        this.masterAddress = masterAddress;
        this.masterBrokerAddr = masterBrokerAddr;
        this.nextReconnectDelayMs = config.reconnectIntervalMs();
        this.group = new MultiThreadIoEventLoopGroup(1,
            DaemonThreads.factory(index -> "AutoSwitchHAClient", FastThreadLocalThread::new), NioIoHandler.newFactory());
    }

    /** Connects to the master with TLS ({@code haTlsEnable}); set before {@link #start()}. */
    public void useTls(io.netty.handler.ssl.SslContext context) {
        this.tlsContext = context;
    }

    /** Starts connecting (and reconnecting) to the master. The store must be running. */
    public void start() {
        confirmOffset = store.replicatedLog().dispatchedOffset();
        if (config.allAckInSyncStateSet()) {
            store.replicatedLog().setDispatchLimit(() -> confirmOffset);
        }
        LOG.info("AutoSwitchHAClient (controller id {}) replicating from master {} (epochs {}, local CommitLog [{}, {}))",
            self.brokerId(), masterAddress, epochs.entries(), store.getMinPhyOffset(), store.getMaxPhyOffset());
        group.execute(this::connect);
    }

    /** Closes the connection, stops reconnecting and lifts the dispatch limit; waits for the thread. Idempotent. */
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
        if (config.allAckInSyncStateSet()) {
            store.replicatedLog().setDispatchLimit(null);
        }
    }

    public State state() {
        return state;
    }

    public String stateName() {
        return state.name();
    }

    public String protocol() {
        return PROTOCOL;
    }

    public long maxOffset() {
        return store.getMaxPhyOffset();
    }

    public long masterMaxOffsetSeen() {
        return masterMaxOffsetSeen;
    }

    /** The confirmOffset the master last sent, bounded by this slave's end. */
    public long confirmOffset() {
        return confirmOffset;
    }

    /** Why the last handshake or transfer was dropped, null before any. */
    public String lastRefusal() {
        return lastRefusal;
    }

    /** Handshakes answered by the master so far (a metric; tests wait on it). */
    public long handshakes() {
        return handshakes;
    }

    public String masterBrokerAddr() {
        return state == State.TRANSFER ? masterBrokerAddr : null;
    }

    public String lastMasterBrokerAddr() {
        return masterBrokerAddr == null ? "" : masterBrokerAddr;
    }

    public InetSocketAddress masterAddress() {
        return masterAddress;
    }

    private void state(State next, String reason) {
        if (state == State.SHUTDOWN) {
            return;
        }
        LOG.info("AutoSwitchHAClient {} -> {} ({})", state, next, reason);
        state = next;
    }

    private void connect() {
        if (state == State.SHUTDOWN) {
            return;
        }
        nextReconnectDelayMs = config.reconnectIntervalMs();
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
                        config.haSendHeartbeatInterval(), 0, TimeUnit.MILLISECONDS), new Handler());
                }
            });
        b.connect(masterAddress).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                LOG.warn("AutoSwitchHAClient cannot connect to master {}: {}", masterAddress, f.cause().toString());
                scheduleReconnect();
                return;
            }
            channel = f.channel();
            f.channel().closeFuture().addListener(c -> {
                channel = null;
                if (state != State.SHUTDOWN) {
                    state(State.READY, "connection to master closed");
                    scheduleReconnect();
                }
            });
        });
    }

    private void scheduleReconnect() {
        if (state != State.SHUTDOWN && !group.isShuttingDown()) {
            group.schedule(this::connect, nextReconnectDelayMs, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * RocketMQ's consistent point of two epoch histories, each closed by its log's end: the first epoch,
     * newest local first, that the master also has with the same start offset gives
     * {@code min(local end, master end)} of that epoch; -1 when there is none.
     */
    static long consistentPoint(List<EpochFile.Entry> local, long localMax, List<EpochFile.Entry> master, long masterMax) {
        for (int i = local.size() - 1; i >= 0; i--) {
            EpochFile.Entry l = local.get(i);
            for (int j = master.size() - 1; j >= 0; j--) {
                EpochFile.Entry m = master.get(j);
                if (m.epoch() == l.epoch() && m.startOffset() == l.startOffset()) {
                    long localEnd = i + 1 < local.size() ? local.get(i + 1).startOffset() : localMax;
                    long masterEnd = j + 1 < master.size() ? master.get(j + 1).startOffset() : masterMax;
                    return Math.min(localEnd, masterEnd);
                }
            }
        }
        return -1;
    }

    /** The pipeline end: handshake, then transfer frames. Client thread only. */
    private final class Handler extends ByteToMessageDecoder {
        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            reportedOffset = -1;
            currentEpoch = -1;
            ctx.writeAndFlush(AutoSwitchWire.encodeSlaveHandshake(ctx.alloc(), new AutoSwitchWire.SlaveHandshake(
                config.syncFromLastFile(), config.asyncLearner(), self.brokerId())));
            state(State.HANDSHAKE, "connected to " + masterAddress + " as controller id " + self.brokerId());
            super.channelActive(ctx);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            try {
                if (state == State.HANDSHAKE) {
                    AutoSwitchWire.MasterHandshake h = AutoSwitchWire.tryDecodeMasterHandshake(in);
                    if (h != null) {
                        onHandshake(ctx, h);
                    }
                }
                if (state == State.TRANSFER) {
                    readFrames(ctx, in);
                } else if (state != State.HANDSHAKE) {
                    in.skipBytes(in.readableBytes());
                }
            } catch (AutoSwitchWire.ProtocolException e) {
                in.skipBytes(in.readableBytes());
                drop(ctx, "master broke the AutoSwitch protocol: " + e.getMessage());
            }
        }

        private void onHandshake(ChannelHandlerContext ctx, AutoSwitchWire.MasterHandshake h) throws IOException {
            handshakes++;
            masterMaxOffsetSeen = h.masterMaxOffset();
            List<EpochFile.Entry> local = epochs.entries();
            long localMax = store.getMaxPhyOffset();
            long report;
            if (local.isEmpty()) {
                // a new replica: RocketMQ skips truncation and reports its end (0 when empty)
                report = localMax;
            } else {
                long point = consistentPoint(local, localMax, h.epochs(), h.masterMaxOffset());
                if (point < 0) {
                    nextReconnectDelayMs = NO_CONSISTENT_POINT_RETRY_MS;
                    drop(ctx, "no consistent point with master " + masterAddress + ": no epoch of this store " + local
                        + " is on the master " + h.epochs() + " with the same start offset, so this replica holds"
                        + " history the master never had and cannot follow it. Operator: stop this broker, move its"
                        + " store (commitlog, consumequeue, index, epoch file) aside and start it empty to copy the"
                        + " master again; retrying every " + NO_CONSISTENT_POINT_RETRY_MS + " ms meanwhile");
                    return;
                }
                if (point < store.getMinPhyOffset()) {
                    nextReconnectDelayMs = NO_CONSISTENT_POINT_RETRY_MS;
                    drop(ctx, "the consistent point " + point + " with master " + masterAddress + " is below this"
                        + " store's oldest offset " + store.getMinPhyOffset() + "; start this replica empty");
                    return;
                }
                if (localMax > point) {
                    LOG.warn("AutoSwitchHAClient: local CommitLog [{}, {}) diverges from master {} after offset {};"
                        + " truncating (durably) before reporting", store.getMinPhyOffset(), localMax, masterAddress, point);
                    store.replicatedLog().truncateTo(point);
                }
                List<EpochFile.Entry> kept = new ArrayList<>();
                for (EpochFile.Entry e : local) {
                    // RocketMQ's truncateSuffixByOffset: an epoch starting at or after the cut is gone with it
                    if (e.startOffset() < point) {
                        kept.add(e);
                    }
                }
                if (!kept.equals(local)) {
                    LOG.warn("AutoSwitchHAClient: epoch entries from offset {} on dropped: {} -> {}", point, local, kept);
                    epochs.replaceWith(kept);
                }
                report = point;
                confirmOffset = Math.min(confirmOffset, point);
            }
            state(State.TRANSFER, "master max offset " + h.masterMaxOffset() + ", last epoch " + h.lastEpoch()
                + ", epochs " + h.epochs() + "; reporting " + report);
            sendReport(ctx, report);
        }

        private void readFrames(ChannelHandlerContext ctx, ByteBuf in) throws IOException {
            while (state == State.TRANSFER) {
                AutoSwitchWire.TransferHeader h = AutoSwitchWire.tryDecodeTransferHeader(in, store.replicatedLog().fileSize());
                if (h == null) {
                    return;
                }
                long localMax = store.getMaxPhyOffset();
                if (localMax != 0 && h.offset() != localMax) {
                    in.skipBytes(h.bodySize());
                    drop(ctx, "frame at offset " + h.offset() + " (" + h.bodySize() + " bytes) but this CommitLog ends at "
                        + localMax);
                    return;
                }
                if (h.epoch() != currentEpoch && !adoptEpoch(ctx, h)) {
                    in.skipBytes(h.bodySize());
                    return;
                }
                if (h.bodySize() > 0) {
                    ReplicaAppend appended = store.replicatedLog().appendReplicated(h.offset(),
                        in.nioBuffer(in.readerIndex(), h.bodySize()));
                    in.skipBytes(h.bodySize());
                    if (appended != ReplicaAppend.APPENDED) {
                        drop(ctx, "frame at offset " + h.offset() + " (" + h.bodySize() + " bytes) not appended: "
                            + appended + ", local end " + store.getMaxPhyOffset());
                        return;
                    }
                }
                long end = h.offset() + h.bodySize();
                masterMaxOffsetSeen = Math.max(masterMaxOffsetSeen, end);
                confirmOffset = Math.min(h.confirmOffset(), store.getMaxPhyOffset());
            }
        }

        /** A frame of another epoch than the last one: record it (a new epoch) or refuse it (an older one). */
        private boolean adoptEpoch(ChannelHandlerContext ctx, AutoSwitchWire.TransferHeader h) throws IOException {
            List<EpochFile.Entry> local = epochs.entries();
            EpochFile.Entry last = local.isEmpty() ? null : local.get(local.size() - 1);
            if (last != null && last.epoch() == h.epoch() && last.startOffset() == h.epochStartOffset()) {
                currentEpoch = h.epoch();
                return true;
            }
            if (last != null && (h.epoch() <= last.epoch() || h.epochStartOffset() < last.startOffset())) {
                drop(ctx, "frame of epoch " + h.epoch() + " starting at " + h.epochStartOffset() + " does not follow"
                    + " this store's last epoch " + last);
                return false;
            }
            List<EpochFile.Entry> next = new ArrayList<>(local);
            next.add(new EpochFile.Entry(h.epoch(), h.epochStartOffset()));
            epochs.replaceWith(next);
            currentEpoch = h.epoch();
            LOG.info("AutoSwitchHAClient: epoch {} from offset {} recorded", h.epoch(), h.epochStartOffset());
            return true;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            if (state == State.TRANSFER) {
                long max = store.getMaxPhyOffset();
                if (max > reportedOffset) {
                    sendReport(ctx, max);
                }
            }
            super.channelReadComplete(ctx);
        }

        private void sendReport(ChannelHandlerContext ctx, long offset) {
            reportedOffset = offset;
            ctx.writeAndFlush(AutoSwitchWire.encodeSlaveReport(ctx.alloc(), offset));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent idle) {
                if (idle.state() == IdleState.READER_IDLE) {
                    drop(ctx, "nothing from the master for " + config.haHousekeepingInterval() + " ms");
                } else if (state == State.TRANSFER) {
                    sendReport(ctx, Math.max(reportedOffset, store.getMaxPhyOffset()));
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
            lastRefusal = reason;
            LOG.error("AutoSwitchHAClient dropping the connection to {}: {}", masterAddress, reason);
            state(State.READY, reason);
            ctx.close();
        }
    }
}
