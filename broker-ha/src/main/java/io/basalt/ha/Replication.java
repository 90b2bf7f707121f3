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

import io.basalt.ha.master.HAService;
import io.basalt.ha.slave.HAClient;
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
    private final Peer self;
    private final InetSocketAddress masterHaAddress;
    private volatile BrokerRole role;
    private volatile Consumer<String> fenceListener = reason -> { };
    private volatile HAService master;
    private volatile ReplicaClient slave;
    private boolean started;

    /**
     * @param masterHaAddress a slave's master HA address (required for {@link BrokerRole#SLAVE}); ignored by masters
     */
    public Replication(MessageStore store, EpochFile epochs, HAConfig config, Peer self, BrokerRole role,
                       InetSocketAddress masterHaAddress) {
        if (role == BrokerRole.SLAVE && masterHaAddress == null) {
            throw new IllegalArgumentException("brokerRole=SLAVE needs haMasterAddress (host:port of the master's HA port)");
        }
        this.store = store;
        this.epochs = epochs;
        this.config = config;
        this.self = self;
        this.role = role;
        this.masterHaAddress = masterHaAddress;
    }

    /** Starts the role's endpoint; the store must be running. */
    public synchronized void start() throws IOException {
        if (started) {
            return;
        }
        started = true;
        if (role == BrokerRole.SLAVE) {
            slave = new HAClient(store, epochs, config, self, masterHaAddress);
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
        HAService service = new HAService(store, epochs, config, self, role == BrokerRole.SYNC_MASTER);
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
        if (client != null) {
            client.shutdown();
            slave = null;
        }
        store.replicatedLog().alignQueueOffsetsWithLog();
        long epoch = epochs.startEpoch(store.getMaxPhyOffset());
        role = newRole;
        startMaster();
        LOG.warn("Promoted to {} with epoch {} at CommitLog offset {}", newRole, epoch, store.getMaxPhyOffset());
        StepDownNotice.Outcome told = StepDownNotice.send(masterHaAddress, self, epoch, store.getMaxPhyOffset(),
            STEP_DOWN_TIMEOUT_MS);
        switch (told) {
            case FENCED -> LOG.warn("The previous master at {} was told of epoch {} and fenced itself", masterHaAddress, epoch);
            case UNREACHABLE -> LOG.warn("The previous master at {} could not be told of epoch {}; it fences itself"
                + " when a slave of this epoch reaches it", masterHaAddress, epoch);
            case NOT_DEPOSED -> LOG.error("The previous master at {} is not older than epoch {}: two masters may accept"
                + " writes; check the broker group", masterHaAddress, epoch);
        }
        return epoch;
    }

    /** Stops the endpoint (answering waiting puts). Idempotent. */
    public synchronized void shutdown() {
        ReplicaClient c = slave;
        if (c != null) {
            c.shutdown();
        }
        HAService m = master;
        if (m != null) {
            m.shutdown();
        }
    }

    public BrokerRole role() {
        return role;
    }

    /** True for a running, unfenced master: the broker may accept producers' writes. */
    public boolean acceptsWrites() {
        HAService m = master;
        return role != BrokerRole.SLAVE && m != null && !m.isFenced();
    }

    public long epoch() {
        return epochs.lastEpoch();
    }

    /** A master's HA port, -1 on a slave. */
    public int haListenPort() {
        HAService m = master;
        return m == null ? -1 : m.localPort();
    }

    /** Unexpected errors of replication's service threads by thread name (a metric): a SYNC_MASTER's replica wait. */
    public Map<String, Long> serviceErrorCounts() {
        HAService m = master;
        return m == null || role != BrokerRole.SYNC_MASTER ? Map.of()
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
        addrs.put(role == BrokerRole.SLAVE ? self.brokerId() : MASTER_ID, self.brokerAddr());
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
}
