package io.basalt.ha.master;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.EpochFile;
import io.basalt.ha.HAAuth;
import io.basalt.ha.HAConfig;
import io.basalt.ha.Peer;
import io.basalt.ha.SlaveStatus;
import io.basalt.ha.autoswitch.SyncStateSetTracker;
import io.basalt.store.MessageStore;
import io.basalt.store.StoredMessage;
import io.basalt.store.spi.AppendListener;
import io.basalt.store.spi.ReplicaWait;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;

/**
 * The master side of replication: listens on {@code haListenPort} (Netty, like the remoting server)
 * and runs one connection per slave, each streaming the CommitLog from the offset its slave asked
 * for. A new connection's first bytes choose its protocol ({@link HAProtocolDispatcher}): a Basalt
 * slave's HELLO gets an {@link HAConnection}, anything else a RocketMQ classic slave's
 * {@link ClassicConnection}. With {@code syncMaster} it installs a {@link GroupTransferService} as the CommitLog's
 * replica wait, so a put completes only once a slave acknowledged its bytes. When it stops, it leaves
 * {@link ReplicaWait#STOPPED} behind: no put is acknowledged without the wait it would have needed.
 *
 * <p>Its threads are an {@link HAListener}'s, shared with the broker's other endpoints. A classic-mode
 * service binds {@code haListenPort} itself; a controller-mode broker's listener has the port bound for
 * the broker's life, and the service only takes its connections while it runs.
 *
 * <p>The service owns the store's master generation: on the first start of a store with no history
 * it starts epoch 1; {@link #promote} (a slave becoming master) starts the next one. A slave that
 * reports a newer epoch than ours proves a newer master exists: this master fences itself
 * ({@link #isFenced()}) and its broker stops accepting writes.
 *
 * <p>Threads: {@link #start()} and {@link #shutdown()} from the broker's lifecycle thread; status
 * getters from any thread; each connection lives on its event loop.
 */
public final class HAService {
    private static final Logger LOG = LoggerFactory.getLogger(HAService.class);
    private static final long STATUS_LOG_PERIOD_S = 30;
    /** Controller mode: how often members that fell behind are taken out of the SyncStateSet, ms. */
    private static final long SYNC_STATE_SET_CHECK_MS = 1000;
    /** How long a stop waits for each connection to close on a listener it does not own. */
    private static final long CONNECTION_CLOSE_WAIT_MS = 2000;

    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    private final Peer self;
    private final boolean syncMaster;
    private final Set<ReplicaConnection> connections = ConcurrentHashMap.newKeySet();
    /** Orders {@link #register} against {@link #shutdown} (never held while waiting for an event loop). */
    private final Object connectionsLock = new Object();
    private final GroupTransferService groupTransfer;
    /**
     * The protocols the HA port speaks, in the order {@link HAProtocolDispatcher} asks them. A third
     * protocol (RocketMQ's AutoSwitch handshake, for controller mode) goes before the classic
     * fallback, which takes every connection no one before it claims.
     */
    private final List<HAProtocol> protocols;
    /** Controller mode: the SyncStateSet, confirmOffset and write path; null in classic mode. */
    private final InSyncReplicas inSync;
    /** The HA port's threads (and port); shared with the other endpoints of the broker's life unless {@link #ownsListener}. */
    private final HAListener listener;
    private final boolean ownsListener;
    /** Whether this endpoint took connections from the listener's port rather than binding its own. */
    private boolean attached;
    private final List<ScheduledFuture<?>> periodic = new ArrayList<>();
    /** {@code haAuthSecret}: slaves prove the secret before their protocol; null when not set. */
    private final HAAuth auth;
    private Channel serverChannel;
    private volatile long epoch;
    private volatile String fencedReason;
    private final AtomicBoolean fenceOnce = new AtomicBoolean();
    private volatile Consumer<String> fenceListener = reason -> { };
    private volatile boolean running;
    /** Wakes every connection when the log grows; registered while the service runs. */
    private final AppendListener wakeConnections = maxReadable -> {
        if (running) {
            for (ReplicaConnection c : connections) {
                c.wakeup();
            }
        }
    };

    public HAService(MessageStore store, EpochFile epochs, HAConfig config, Peer self, boolean syncMaster) {
        this(store, epochs, config, self, syncMaster, null);
    }

    /**
     * A classic-mode master on {@code listener}'s threads (null: threads of its own, stopped with it), which it
     * does not close.
     */
    public HAService(MessageStore store, EpochFile epochs, HAConfig config, Peer self, boolean syncMaster,
                     HAListener listener) {
        this.store = store;
        this.ownsListener = listener == null;
        this.listener = listener == null ? new HAListener() : listener;
        this.self = self;
        this.epochs = epochs;
        this.config = config;
        this.auth = config.haAuthSecret().map(secret -> new HAAuth(secret, System::currentTimeMillis)).orElse(null);
        this.syncMaster = syncMaster;
        this.groupTransfer = syncMaster ? new GroupTransferService(slaveAcks(), config.slaveTimeoutMs(),
            config.haMaxGapNotInSync(), store.durabilityErrorPolicy()) : null;
        this.protocols = List.of(HAProtocolDispatcher.BASALT, HAProtocolDispatcher.CLASSIC);
        this.inSync = null;
    }

    private HAService(MessageStore store, EpochFile epochs, HAConfig config, Peer self, HAListener listener) {
        this.store = store;
        this.ownsListener = listener == null;
        this.listener = listener == null ? new HAListener() : listener;
        this.self = self;
        this.epochs = epochs;
        this.config = config;
        this.auth = config.haAuthSecret().map(secret -> new HAAuth(secret, System::currentTimeMillis)).orElse(null);
        this.syncMaster = false;
        this.groupTransfer = null;
        this.protocols = List.of(AUTOSWITCH);
        this.inSync = new InSyncReplicas(this, store, epochs, config,
            new SyncStateSetTracker(self.brokerId(), config.haMaxTimeSlaveNotCatchupMs(), System::currentTimeMillis));
    }

    /**
     * A controller-mode master (RocketMQ's {@code AutoSwitchHAService}): the HA port speaks RocketMQ 5's
     * AutoSwitch protocol only (RocketMQ 5.2.0 slaves in controller mode, and Basalt's
     * {@link io.basalt.ha.autoswitch.AutoSwitchClient}); puts follow {@code minInSyncReplicas},
     * {@code allAckInSyncStateSet} and {@code inSyncReplicas}; the SyncStateSet is
     * {@link #syncStateSet()}. The caller records the Controller's epoch in the epoch file before
     * {@link #start()}.
     *
     * @param self this master, with its controller broker id (the SyncStateSet's master member)
     */
    public static HAService controllerMode(MessageStore store, EpochFile epochs, HAConfig config, Peer self) {
        return new HAService(store, epochs, config, self, null);
    }

    /** {@link #controllerMode(MessageStore, EpochFile, HAConfig, Peer)} on {@code listener}, which it does not close. */
    public static HAService controllerMode(MessageStore store, EpochFile epochs, HAConfig config, Peer self,
                                           HAListener listener) {
        return new HAService(store, epochs, config, self, listener);
    }

    /** Controller mode's protocol: every connection is an AutoSwitch one (anything else is refused by it, named). */
    private static final HAProtocol AUTOSWITCH = new HAProtocol() {
        @Override
        public String name() {
            return AutoSwitchConnection.PROTOCOL;
        }

        @Override
        public Match match(io.netty.buffer.ByteBuf firstBytes) {
            return Match.YES;
        }

        @Override
        public ReplicaConnection open(HAService service, Channel channel) {
            return new AutoSwitchConnection(service, service.inSync, channel);
        }
    };

    /**
     * Binds {@code haListenPort}, starts the first epoch if the store has none, and for a SYNC_MASTER
     * installs the replica wait. The store must be running.
     */
    public synchronized void start() throws IOException {
        if (running) {
            return;
        }
        if (epochs.entries().isEmpty()) {
            epochs.startEpoch(store.getMaxPhyOffset());
        }
        epoch = epochs.lastEpoch();
        EventLoopGroup workers = listener.workers();
        attached = listener.isListening();
        if (!attached) {
            ServerBootstrap bootstrap = listener.bootstrap(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    initConnection(ch);
                }
            });
            try {
                serverChannel = bootstrap.bind(config.haListenPort()).syncUninterruptibly().channel();
            } catch (RuntimeException e) {
                if (ownsListener) {
                    listener.close();
                }
                throw new IOException("HA service cannot listen on port " + config.haListenPort() + ": " + e, e);
            }
        }
        store.replicatedLog().addAppendListener(wakeConnections);
        if (groupTransfer != null) {
            groupTransfer.start();
            store.replicatedLog().setReplicaWait(groupTransfer);
        }
        if (inSync != null) {
            inSync.start();
        }
        if (groupTransfer == null && inSync == null) {
            // an ASYNC_MASTER waits for no replica (a stopped predecessor left ReplicaWait.STOPPED behind)
            store.replicatedLog().setReplicaWait(ReplicaWait.NONE);
        }
        if (inSync != null) {
            periodic.add(workers.next().scheduleAtFixedRate(inSync::shrink, SYNC_STATE_SET_CHECK_MS,
                SYNC_STATE_SET_CHECK_MS, TimeUnit.MILLISECONDS));
        }
        running = true;
        if (attached) {
            // controller mode: the port is bound for the broker's life; this endpoint takes its connections from now
            listener.attach(this);
        }
        periodic.add(workers.next().scheduleAtFixedRate(this::logStatus, STATUS_LOG_PERIOD_S, STATUS_LOG_PERIOD_S,
            TimeUnit.SECONDS));
        LOG.info("HAService listening on port {}, epoch {}, CommitLog [{}, {})", localPort(), epoch,
            store.getMinPhyOffset(), store.getMaxPhyOffset());
        if (syncMaster) {
            LOG.info("SYNC_MASTER: a put (WAIT=true) is acknowledged only after a slave acknowledged its bytes and "
                + "the flush requirement is met; FLUSH_SLAVE_TIMEOUT after slaveTimeout {} ms, SLAVE_NOT_AVAILABLE at "
                + "once when no slave is within haMaxGapNotInSync {} bytes", config.slaveTimeoutMs(),
                config.haMaxGapNotInSync());
        }
    }

    /** Stops listening, closes every connection and answers every waiting put. Idempotent. */
    public synchronized void shutdown() {
        if (!running) {
            return;
        }
        synchronized (connectionsLock) {
            running = false;
        }
        periodic.forEach(f -> f.cancel(false));
        periodic.clear();
        if (groupTransfer != null) {
            // puts are refused from here on; those already admitted get their answer from the service they waited on
            store.replicatedLog().setReplicaWait(ReplicaWait.STOPPED);
            groupTransfer.shutdown();
        }
        if (inSync != null) {
            inSync.shutdown();
        }
        // a broker changes roles many times in its life: a stopped service must not stay in the append path
        store.replicatedLog().removeAppendListener(wakeConnections);
        if (attached) {
            listener.detach(this);
        } else if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        List<Future<?>> closing = new ArrayList<>();
        for (ReplicaConnection c : connections) {
            closing.add(c.close("HA service shutting down"));
        }
        if (ownsListener) {
            listener.close();
        } else {
            // the listener runs on: wait for the connections to be closed, so that none outlives its service
            for (Future<?> f : closing) {
                f.awaitUninterruptibly(CONNECTION_CLOSE_WAIT_MS);
            }
        }
        LOG.info("HAService stopped");
    }

    /** The bound HA port. */
    public int localPort() {
        return attached ? listener.localPort() : ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Sets up a slave's connection on this endpoint (idle checks, then the protocol its first bytes choose). */
    void initConnection(SocketChannel ch) {
        listener.initTls(ch);
        ch.pipeline().addLast(new IdleStateHandler(config.haHousekeepingInterval(), config.haSendHeartbeatInterval(), 0,
            TimeUnit.MILLISECONDS));
        if (auth != null) {
            ch.pipeline().addLast(auth.gate());
        }
        ch.pipeline().addLast(new HAProtocolDispatcher(this, protocols));
    }

    /** This master's generation. */
    public long epoch() {
        return epoch;
    }

    /** Non-null once a slave proved a newer master exists; the broker must then refuse writes. */
    public String fencedReason() {
        return fencedReason;
    }

    /** Unexpected errors of the SYNC_MASTER replica wait ({@code GroupTransferService}) so far; 0 without it. */
    public long replicaWaitErrorCount() {
        return inSync != null ? inSync.errorCount() : groupTransfer == null ? 0 : groupTransfer.errorCount();
    }

    /**
     * Controller mode: this master's SyncStateSet. The role manager {@link SyncStateSetTracker#adopt}s the
     * Controller's set (election, ALTER_SYNC_STATE_SET answers) and hears proposals through
     * {@link SyncStateSetTracker#onProposal}. Null in classic mode.
     */
    public SyncStateSetTracker syncStateSet() {
        return inSync == null ? null : inSync.syncStateSet();
    }

    /** Controller mode: the confirmOffset (least acknowledgement of the SyncStateSet's slaves); -1 in classic mode. */
    public long confirmOffset() {
        return inSync == null ? -1 : inSync.confirmOffset();
    }

    /**
     * Controller mode: confirmOffset stops moving for {@code reason} (call it with the role manager's
     * write suspension when the Controller is out of reach), so an isolated master's consumers see no
     * more of its log. No-op in classic mode.
     */
    public void holdConfirmOffset(String reason) {
        if (inSync != null) {
            inSync.holdConfirmOffset(reason);
        }
    }

    /** Controller mode: the Controller confirmed this master again; confirmOffset follows the acks. */
    public void releaseConfirmOffset() {
        if (inSync != null) {
            inSync.releaseConfirmOffset();
        }
    }

    /** Controller mode: tell the write path the SyncStateSet changed (after an adopt); no-op in classic mode. */
    public void syncStateSetChanged() {
        if (inSync != null) {
            inSync.onChange();
        }
    }

    public boolean isFenced() {
        return fencedReason != null;
    }

    /** Every slave in the streaming state, with its acknowledged offset and lag. */
    public List<SlaveStatus> slaves() {
        long max = store.getMaxPhyOffset();
        long now = System.currentTimeMillis();
        List<SlaveStatus> out = new ArrayList<>();
        for (ReplicaConnection c : connections) {
            if (c.isTransferring()) {
                long ack = c.ackOffset();
                out.add(new SlaveStatus(c.remoteAddress(), c.brokerId(), c.brokerAddr(), ack, Math.max(0, max - ack), lagMs(ack, max, now),
                    c.protocol()));
            }
        }
        return out;
    }

    /** Age of the oldest message the slave does not have (0 when it has everything). */
    private long lagMs(long ack, long max, long now) {
        if (ack >= max) {
            return 0;
        }
        try {
            StoredMessage m = store.lookMessageByOffset(ack);
            return m == null ? 0 : Math.max(0, now - m.storeTimestamp());
        } catch (RuntimeException e) {
            // the ack sits on a file's END_OF_FILE marker: no record there
            return 0;
        }
    }

    /** Highest offset any streaming slave acknowledged, -1 with none. */
    private GroupTransferService.SlaveAcks slaveAcks() {
        return new GroupTransferService.SlaveAcks() {
            @Override
            public long bestAckOffset() {
                return HAService.this.bestAckOffset();
            }

            @Override
            public boolean hasSlaveInSync(long gap) {
                return HAService.this.hasSlaveInSync(gap);
            }
        };
    }

    long bestAckOffset() {
        long best = -1;
        for (ReplicaConnection c : connections) {
            if (c.isTransferring()) {
                best = Math.max(best, c.ackOffset());
            }
        }
        return best;
    }

    /** True when some streaming slave is less than haMaxGapNotInSync behind the master's end. */
    boolean hasSlaveInSync(long gap) {
        long max = store.getMaxPhyOffset();
        for (ReplicaConnection c : connections) {
            if (c.isTransferring() && max - c.ackOffset() < gap) {
                return true;
            }
        }
        return false;
    }

    void onAck() {
        if (groupTransfer != null) {
            groupTransfer.onAck();
        }
    }

    /** Who hears, once, that this master was fenced (the broker leaves its name servers); set before start. */
    public void onFenced(Consumer<String> listener) {
        this.fenceListener = listener;
    }

    /** Stops this master accepting writes for good: a newer master exists. Idempotent; any thread. */
    public void fence(String reason) {
        // no lock: fence runs on an HA event loop, which shutdown() (holding this object) waits for
        if (fenceOnce.compareAndSet(false, true)) {
            fencedReason = reason;
            LOG.error("This master (epoch {}) is fenced and must not accept writes: {}", epoch, reason);
            fenceListener.accept(reason);
        }
    }

    boolean register(ReplicaConnection c) {
        // against shutdown: a connection is either refused here or in the set shutdown closes
        synchronized (connectionsLock) {
            if (!running) {
                return false;
            }
            connections.add(c);
            return true;
        }
    }

    Set<ReplicaConnection> connections() {
        return connections;
    }

    /** Whether another live connection than {@code c} comes from the slave {@code brokerId}. */
    boolean hasOtherConnection(ReplicaConnection c, long brokerId) {
        for (ReplicaConnection other : connections) {
            if (other != c && other.brokerId() == brokerId) {
                return true;
            }
        }
        return false;
    }

    void unregister(ReplicaConnection c) {
        connections.remove(c);
        onAck();
    }

    MessageStore store() {
        return store;
    }

    HAConfig config() {
        return config;
    }

    Peer self() {
        return self;
    }

    List<EpochFile.Entry> epochEntries() {
        return epochs.entries();
    }

    private void logStatus() {
        for (SlaveStatus s : slaves()) {
            LOG.info("slave {} ack offset {}, lag {} bytes, {} ms", s.address(), s.ackOffset(), s.lagBytes(), s.lagMs());
        }
    }

}
