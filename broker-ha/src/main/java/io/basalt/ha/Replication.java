package io.basalt.ha;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.autoswitch.AutoSwitchClient;
import io.basalt.ha.master.HAListener;
import io.basalt.ha.master.HAService;
import io.basalt.ha.slave.HAClient;
import io.basalt.ha.slave.MasterLocator;
import io.basalt.ha.slave.ReplicaClient;
import io.basalt.store.MessageStore;

/**
 * A broker's part in replication, by role: a master runs an {@link HAService} (a SYNC_MASTER's puts
 * wait for a slave), a slave runs an {@link HAClient}. {@link #promote} turns a slave into a master
 * without a restart, starting a new epoch so that the deposed master is refused by slaves, told to
 * step down when it is still reachable, and fenced when it meets a slave of the new epoch.
 *
 * <p>Threads: lifecycle and {@link #promote} are serialised on this object; the getters may be
 * called from any thread.
 */
public final class Replication {
    private static final Logger LOG = LoggerFactory.getLogger(Replication.class);
    private static final long MASTER_ID = 0;
    /** How long a promotion waits to tell the previous master (a dead one refuses or times out). */
    private static final int STEP_DOWN_TIMEOUT_MS = 1000;

    /** RocketMQ's {@code brokerRole} values. */

    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    /** This broker to its peers; in controller mode its id is the controller's, set by each role change. */
    private volatile Peer self;
    private volatile InetSocketAddress masterHaAddress;
    private volatile BrokerRole role;
    /** Controller mode: the role comes from {@link #becomeMaster} and {@link #becomeSlave}, not from the configuration. */
    private final boolean controllerMode;
    /** Controller mode: false until the controller gave this broker a role (fenced: no endpoint, no writes). */
    private volatile boolean roleAssigned;
    /** Controller mode: why this master holds writes back for now (the controller is out of reach), null while it does not. */
    private volatile String writeSuspension;
    private volatile Consumer<String> fenceListener = reason -> { };
    private volatile HAService master;
    /** The HA port's threads (and, in controller mode, the port), kept across every master endpoint this broker runs. */
    private final HAListener haListener = new HAListener();
    /** {@code haTlsEnable}: the TLS context of the connection to the master; null: plaintext. */
    private volatile io.netty.handler.ssl.SslContext haClientTls;
    private volatile ReplicaClient slave;
    private volatile MasterLocator locator = MasterLocator.NONE;
    private boolean started;

    /**
     * @param masterHaAddress a slave's configured master HA address (haMasterAddress), or null for one the
     *                        {@link #locateMasterWith locator} names; ignored by masters
     */
    public Replication(MessageStore store, EpochFile epochs, HAConfig config, Peer self, BrokerRole role,
                       InetSocketAddress masterHaAddress) {
        this.store = store;
        this.epochs = epochs;
        this.config = config;
        this.self = self;
        this.role = role;
        this.masterHaAddress = masterHaAddress;
        this.controllerMode = false;
        this.roleAssigned = true;
    }

    private Replication(MessageStore store, EpochFile epochs, HAConfig config, Peer self) {
        this.store = store;
        this.epochs = epochs;
        this.config = config;
        this.self = self;
        this.role = BrokerRole.SLAVE;
        this.controllerMode = true;
        this.roleAssigned = false;
    }

    /**
     * Replication in controller mode: the broker starts fenced (no HA endpoint, no writes) and takes the role the
     * RocketMQ Controller gives it ({@link #becomeMaster}, {@link #becomeSlave}), with the controller's epochs.
     *
     * @param self this broker's remoting address; its id is the controller's, given with each role
     */
    public static Replication controlled(MessageStore store, EpochFile epochs, HAConfig config, Peer self) {
        return new Replication(store, epochs, config, self);
    }

    /**
     * How a slave finds its master's addresses and protocol (the NameServers' answers, GET_HA_PROTOCOLS);
     * set before start. Without one a slave speaks Basalt's wire to haMasterAddress.
     */
    public void locateMasterWith(MasterLocator locator) {
        this.locator = locator;
    }

    /**
     * TLS of replication: {@code mode} and {@code server} for the HA port (as the remoting ports'; null: plaintext), and
     * {@code client} for this broker's connection to its master ({@code haTlsEnable}; null: plaintext). Before start.
     */
    public void setTls(io.basalt.remoting.tls.TlsMode mode, io.netty.handler.ssl.SslContext server,
                       io.netty.handler.ssl.SslContext client) {
        haListener.setTls(mode, server);
        this.haClientTls = client;
    }

    /** Starts the role's endpoint; the store must be running. */
    public synchronized void start() throws IOException {
        if (started) {
            return;
        }
        started = true;
        if (controllerMode) {
            LOG.info("Controller mode: no replication role until the controller gives one; writes are refused until then");
            // any replica may be elected: the HA port is bound from the start (refusing slaves until this broker is
            // master), so a promotion only attaches its endpoint, and a port taken meanwhile cannot fail it
            haListener.listen(config.haListenPort());
            haListener.prestart();
            return;
        }
        if (role == BrokerRole.SLAVE) {
            HAClient client = new HAClient(store, epochs, config, self, masterHaAddress, locator);
            client.useTls(haClientTls);
            slave = client;
            slave.start();
        } else {
            startMaster();
        }
    }

    /** Who hears, once, that this master was fenced (a newer master exists); set before start. */
    public void onFenced(Consumer<String> listener) {
        this.fenceListener = listener;
    }

    /**
     * Fences this master: it accepts no more writes (used by a broker that learns of a newer master
     * another way than through a slave). No effect on a slave.
     */
    public void fence(String reason) {
        HAService m = master;
        if (m != null) {
            m.fence(reason);
        }
    }

    private void startMaster() throws IOException {
        startMaster(role == BrokerRole.SYNC_MASTER);
    }

    private void startMaster(boolean waitForSlave) throws IOException {
        HAService service = new HAService(store, epochs, config, self, waitForSlave, haListener);
        service.onFenced(reason -> fenceListener.accept(reason));
        service.start();
        master = service;
    }

    /**
     * Turns this slave into a master of role {@code newRole} (ASYNC_MASTER or SYNC_MASTER): stops
     * replicating, dispatches what it has, starts epoch {@code expectedEpoch + 1} at its CommitLog end
     * and listens for slaves. Refused unless this broker is a slave following exactly
     * {@code expectedEpoch} (the operator's view matches; a second promotion with the same view fails).
     *
     * @return the new epoch
     */
    public synchronized long promote(BrokerRole newRole, long expectedEpoch) throws IOException {
        if (controllerMode) {
            throw new IllegalStateException("in controller mode the controller elects the master; ask it"
                + " (mqadmin electMaster) instead of promoting this broker");
        }
        if (role != BrokerRole.SLAVE) {
            throw new IllegalStateException("only a slave can be promoted; this broker is " + role);
        }
        if (newRole == BrokerRole.SLAVE) {
            throw new IllegalArgumentException("promotion needs a master role, not SLAVE");
        }
        if (epochs.lastEpoch() != expectedEpoch) {
            throw new IllegalStateException("this slave follows epoch " + epochs.lastEpoch() + ", not " + expectedEpoch);
        }
        ReplicaClient client = slave;
        InetSocketAddress previousMaster = masterHaAddress;
        boolean previousSpeaksBasalt = true;
        if (client != null) {
            previousMaster = client.masterAddress();
            previousSpeaksBasalt = !ReplicaProtocol.CLASSIC.name().equals(client.protocol());
            client.shutdown();
            slave = null;
        }
        store.replicatedLog().alignQueueOffsetsWithLog();
        long epoch = epochs.startEpoch(store.getMaxPhyOffset());
        role = newRole;
        startMaster();
        LOG.warn("Promoted to {} with epoch {} at CommitLog offset {}", newRole, epoch, store.getMaxPhyOffset());
        if (previousMaster == null || !previousSpeaksBasalt) {
            LOG.warn("The previous master ({}) cannot be told of epoch {}: it is {}", previousMaster, epoch,
                previousMaster == null ? "unknown" : "a RocketMQ broker (classic protocol, no epochs)");
            return epoch;
        }
        StepDownNotice.Outcome told = StepDownNotice.send(previousMaster, self, epoch, store.getMaxPhyOffset(),
            STEP_DOWN_TIMEOUT_MS);
        switch (told) {
            case FENCED -> LOG.warn("The previous master at {} was told of epoch {} and fenced itself", previousMaster, epoch);
            case UNREACHABLE -> LOG.warn("The previous master at {} could not be told of epoch {}; it fences itself"
                + " when a slave of this epoch reaches it", previousMaster, epoch);
            case NOT_DEPOSED -> LOG.error("The previous master at {} is not older than epoch {}: two masters may accept"
                + " writes; check the broker group", previousMaster, epoch);
        }
        return epoch;
    }

    // ---- controller mode: roles the controller gives ----

    /**
     * Controller mode: serves as the broker set's master of {@code epoch} (the controller's masterEpoch) with the
     * controller id {@code brokerId}. From a slave (or an unassigned start): stops replicating, dispatches what it
     * has, records the epoch at its CommitLog end and listens for slaves. Already master of an older epoch: records the
     * new epoch and restarts the endpoint, so that every slave handshakes again and learns the epoch. Already master of
     * this epoch: nothing. Lifts a {@linkplain #suspendWrites suspension}.
     *
     * <p>Puts wait for the replicas {@code allAckInSyncStateSet} / {@code inSyncReplicas} ask for (with RocketMQ's
     * defaults, for none), counted over the SyncStateSet the controller adopted ({@link #adoptSyncStateSet}).
     *
     * @return true when the role or the epoch changed
     * @throws IllegalStateException when this store already recorded a newer epoch than the controller's
     */
    public synchronized boolean becomeMaster(long epoch, long brokerId) throws IOException {
        requireControllerMode();
        long local = epochs.lastEpoch();
        if (epoch < local) {
            throw new IllegalStateException("the controller makes this broker master of epoch " + epoch + ", but its store"
                + " already recorded epoch " + local + " (" + epochs.entries() + "); the controller's data is older than"
                + " this store's");
        }
        HAService running = master;
        if (roleAssigned && role.isMaster() && running != null && epoch == local && !running.isFenced()) {
            writeSuspension = null;
            return false;
        }
        long startNs = System.nanoTime();
        stopEndpoints();
        long stoppedNs = System.nanoTime();
        if (epoch > local) {
            store.replicatedLog().alignQueueOffsetsWithLog();
            epochs.startEpoch(epoch, store.getMaxPhyOffset());
        }
        long recordedNs = System.nanoTime();
        self = new Peer(brokerId, self.brokerAddr());
        masterHaAddress = null;
        role = BrokerRole.SYNC_MASTER;
        roleAssigned = true;
        // RocketMQ's AutoSwitch protocol on the HA port: RocketMQ 5 replicas and Basalt's AutoSwitchClient follow it,
        // and puts follow minInSyncReplicas, allAckInSyncStateSet and inSyncReplicas over the SyncStateSet
        HAService service = HAService.controllerMode(store, epochs, config, self, haListener);
        service.onFenced(reason -> fenceListener.accept(reason));
        service.start();
        master = service;
        writeSuspension = null;
        long listeningNs = System.nanoTime();
        // each step is on the failover's critical path: the operator sees which one a slow promotion spent its time in
        LOG.warn("Controller mode: master of epoch {} (controller id {}) at CommitLog offset {}, in {} ms (replication"
            + " stopped {} ms, epoch recorded {} ms, HA port open {} ms)", epoch, brokerId, store.getMaxPhyOffset(),
            millis(listeningNs - startNs), millis(stoppedNs - startNs), millis(recordedNs - stoppedNs),
            millis(listeningNs - recordedNs));
        return true;
    }

    /**
     * Controller mode: follows the master the controller names for {@code epoch}. From a master: closes its HA
     * connections (waiting puts are answered) and stops accepting writes; then replicates from
     * {@code masterHaAddress}, cutting a divergent tail at the handshake. The HA address may be unknown yet (it comes
     * from the NameServers' registration result): then no replication runs until this is called again with it. The
     * same master again: nothing.
     *
     * @param masterHaAddress the master's HA address, null while unknown
     * @return true when the role or the followed master changed
     */
    public synchronized boolean becomeSlave(long epoch, long brokerId, InetSocketAddress masterHaAddress) {
        requireControllerMode();
        boolean same = roleAssigned && role == BrokerRole.SLAVE && self.brokerId() == brokerId
            && java.util.Objects.equals(this.masterHaAddress, masterHaAddress);
        if (same && (masterHaAddress == null || slave != null)) {
            return false;
        }
        // writes are refused before the master endpoint stops: a send let in while it stops would be written with
        // nobody left to wait for its replicas, and the new master's truncation would cut what was acknowledged
        role = BrokerRole.SLAVE;
        roleAssigned = true;
        stopEndpoints();
        // lifted only now that the role says SLAVE: acceptsWrites reads the suspension first, so a reader that sees
        // it lifted sees the new role too
        writeSuspension = null;
        self = new Peer(brokerId, self.brokerAddr());
        this.masterHaAddress = masterHaAddress;
        if (masterHaAddress != null) {
            AutoSwitchClient client = new AutoSwitchClient(store, epochs, config, self, masterHaAddress, null);
            client.useTls(haClientTls);
            client.start();
            slave = client;
        }
        LOG.warn("Controller mode: slave (controller id {}) of the master of epoch {} at HA address {}", brokerId, epoch,
            masterHaAddress == null ? "(not known yet)" : masterHaAddress);
        return true;
    }

    /**
     * Controller mode: this master holds writes back (it cannot reach the controller, which may have elected another
     * master meanwhile) until {@link #resumeWrites} or a role change. Idempotent; any thread.
     */
    public void suspendWrites(String reason) {
        if (writeSuspension == null) {
            LOG.error("Controller mode: this master stops accepting writes: {}", reason);
        }
        writeSuspension = reason;
        HAService m = master;
        if (m != null && controllerMode) {
            // consumers see no more of a log the controller may already have given to another master
            m.holdConfirmOffset(reason);
        }
    }

    /** Controller mode: the controller confirmed this master; it accepts writes again. Any thread. */
    public void resumeWrites() {
        if (writeSuspension != null) {
            LOG.warn("Controller mode: the controller confirmed this master; it accepts writes again");
        }
        writeSuspension = null;
        HAService m = master;
        if (m != null && controllerMode) {
            m.releaseConfirmOffset();
        }
    }

    /**
     * Controller mode, on the master: the SyncStateSet change its tracker proposes (a slave caught up, or one fell
     * behind or left), to be sent as ALTER_SYNC_STATE_SET; empty when nothing is proposed or this is no master.
     */
    public java.util.Optional<java.util.Set<Long>> syncStateSetProposal() {
        HAService m = master;
        if (!controllerMode || m == null || role == BrokerRole.SLAVE) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.ofNullable(m.syncStateSet().proposed());
    }

    /** Controller mode, on the master: the SyncStateSet the controller holds (election, ALTER answer, poll). */
    public void adoptSyncStateSet(java.util.Set<Long> brokerIds) {
        HAService m = master;
        if (controllerMode && m != null && role != BrokerRole.SLAVE) {
            m.syncStateSet().adopt(brokerIds);
        }
    }

    /** Controller mode, on the master: the controller refused the proposal; the adopted set stays in force. */
    public void abandonSyncStateSetProposal() {
        HAService m = master;
        if (controllerMode && m != null && role != BrokerRole.SLAVE) {
            m.syncStateSet().abandonProposal();
        }
    }

    /** Why writes are held back, or null. */
    public String writeSuspension() {
        return writeSuspension;
    }

    /** The end of this broker's CommitLog (heartbeats to the controller, the SyncStateSet rule). */
    public long commitLogMaxOffset() {
        return store.getMaxPhyOffset();
    }

    /** The store's epoch history. */
    public EpochFile epochFile() {
        return epochs;
    }

    /** Whether the controller decides this broker's role. */
    public boolean controllerMode() {
        return controllerMode;
    }

    /** False while a controller-mode broker waits for its first role; always true otherwise. */
    public boolean roleAssigned() {
        return roleAssigned;
    }

    /** This broker's identity towards its peers (its controller id in controller mode). */
    public Peer self() {
        return self;
    }

    /** The master HA address a slave follows (or was configured with); null on a master or while unknown. */
    public InetSocketAddress masterHaAddress() {
        return masterHaAddress;
    }

    private void requireControllerMode() {
        if (!controllerMode) {
            throw new IllegalStateException("roles are given by the controller only in controller mode");
        }
    }

    private void stopEndpoints() {
        ReplicaClient c = slave;
        if (c != null) {
            c.shutdown();
            slave = null;
        }
        HAService m = master;
        if (m != null) {
            m.shutdown();
            master = null;
        }
    }

    /** Stops the endpoint (answering waiting puts) and the HA port's threads. Idempotent. */
    public synchronized void shutdown() {
        ReplicaClient c = slave;
        if (c != null) {
            c.shutdown();
        }
        HAService m = master;
        if (m != null) {
            m.shutdown();
        }
        haListener.close();
    }

    public BrokerRole role() {
        return role;
    }

    /** True for a running, unfenced master: the broker may accept producers' writes. */
    public boolean acceptsWrites() {
        // the suspension is read before the role: becomeSlave writes SLAVE before it lifts a suspension, so a
        // suspended master on its way to slave never reads as accepting (role first could pair an old MASTER with
        // a suspension already lifted)
        if (writeSuspension != null) {
            return false;
        }
        BrokerRole r = role;
        HAService m = master;
        return r != BrokerRole.SLAVE && m != null && !m.isFenced() && roleAssigned;
    }

    public long epoch() {
        return epochs.lastEpoch();
    }

    /** The epoch history (the epoch file's entries), oldest first. */
    public List<EpochFile.Entry> epochEntries() {
        return epochs.entries();
    }

    /** A master's HA port, -1 on a slave. */
    public int haListenPort() {
        HAService m = master;
        return m == null ? -1 : m.localPort();
    }

    /** Unexpected errors of replication's service threads by thread name (a metric): a SYNC_MASTER's replica wait. */
    public Map<String, Long> serviceErrorCounts() {
        HAService m = master;
        return m == null || role != BrokerRole.SYNC_MASTER || controllerMode ? Map.of()
            : Map.of("GroupTransferService", m.replicaWaitErrorCount());
    }

    public List<SlaveStatus> slaves() {
        HAService m = master;
        return m == null ? List.of() : m.slaves();
    }

    /**
     * The broker group as clients should see it, brokerId → remoting address: this broker (as 0
     * while it is master, whatever its configured brokerId), plus
     * on a master every streaming slave, and on a slave the master while it streams from it (a
     * dead master is not listed, so consumers keep reading here).
     */
    public Map<Long, String> brokerAddrs() {
        Map<Long, String> addrs = new TreeMap<>();
        // a promoted slave is the group's master now: clients send to brokerId 0
        if (roleAssigned) {
            addrs.put(role == BrokerRole.SLAVE ? self.brokerId() : MASTER_ID, self.brokerAddr());
        }
        for (SlaveStatus s : slaves()) {
            if (s.brokerId() > 0 && !s.brokerAddr().isEmpty()) {
                addrs.put(s.brokerId(), s.brokerAddr());
            }
        }
        ReplicaClient c = slave;
        if (c != null && c.masterBrokerAddr() != null) {
            addrs.put(MASTER_ID, c.masterBrokerAddr());
        }
        return addrs;
    }

    /** On a master: whether the slave of {@code brokerId} streams from it less than haMaxGapNotInSync behind. */
    public boolean isSlaveInSync(long brokerId) {
        for (SlaveStatus s : slaves()) {
            if (s.brokerId() == brokerId && brokerId > 0 && s.lagBytes() < config.haMaxGapNotInSync()) {
                return true;
            }
        }
        return false;
    }

    /** On a slave: whether its master streams to it now (a master that is down or unreachable does not). */
    public boolean masterStreaming() {
        ReplicaClient c = slave;
        return c != null && c.masterBrokerAddr() != null;
    }

    /** A slave's client, null on a master. */
    public ReplicaClient client() {
        return slave;
    }

    /** Replication fields for the broker's runtime info. */
    public Map<String, String> runtimeInfo() {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("haRole", role.name());
        info.put("haEpoch", Long.toString(epochs.lastEpoch()));
        if (controllerMode) {
            info.put("haRoleAssigned", Boolean.toString(roleAssigned));
            info.put("haWritesSuspended", Boolean.toString(writeSuspension != null));
        }
        HAService m = master;
        if (m != null) {
            List<SlaveStatus> slaves = m.slaves();
            info.put("haConnectionCount", Integer.toString(slaves.size()));
            info.put("haFenced", Boolean.toString(m.isFenced()));
            for (int i = 0; i < slaves.size(); i++) {
                SlaveStatus s = slaves.get(i);
                info.put("haSlave" + i + "Address", s.address());
                info.put("haSlave" + i + "Protocol", s.protocol());
                info.put("haSlave" + i + "AckOffset", Long.toString(s.ackOffset()));
                info.put("haSlave" + i + "LagBytes", Long.toString(s.lagBytes()));
                info.put("haSlave" + i + "LagMs", Long.toString(s.lagMs()));
            }
        }
        ReplicaClient c = slave;
        if (c != null) {
            info.put("haMasterAddress", String.valueOf(c.masterAddress()));
            info.put("haClientState", c.stateName());
            info.put("haProtocol", c.protocol());
            info.put("haMasterMaxOffsetSeen", Long.toString(c.masterMaxOffsetSeen()));
            info.put("haSlaveLagBytes", Long.toString(Math.max(0, c.masterMaxOffsetSeen() - c.maxOffset())));
        }
        return info;
    }

    private static long millis(long nanos) {
        return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
