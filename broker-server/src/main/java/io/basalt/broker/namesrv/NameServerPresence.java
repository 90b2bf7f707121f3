package io.basalt.broker.namesrv;

import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.remoting.netty.NettyRemotingClient;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's relation to its NameServers, through the changes of its replication role:
 * <ul>
 *   <li>{@link #fenceIfRoutedToAnotherMaster()}, before the broker serves: a master whose NameServers route its
 *   broker name to another address was deposed while it was down (a slave was promoted); it starts fenced,
 *   accepting no writes and not registering, instead of taking the route back;</li>
 *   <li>{@link #start()}, once the broker listens: registers (a slave with its brokerId, a master as brokerId
 *   0), unless this master is fenced;</li>
 *   <li>{@link #anotherPromotedMaster()} and {@link #registerAgainAfterPromotion()}, around a promotion: a
 *   slave is not promoted when another master already serves the group, and a promoted slave leaves the
 *   NameServers as a slave and registers again as the group's master (brokerId 0);</li>
 *   <li>{@link #leaveWhenFenced(String)}: a fenced master must not keep registering as brokerId 0 (its next
 *   registration would take the route back from the newer master), so it unregisters and stays away;</li>
 *   <li>{@link #shutdown()}: unregisters, so that the NameServers stop routing clients here.</li>
 * </ul>
 * With no NameServers configured (the broker is its own name server) every step does nothing.
 *
 * <p>Threads: the lifecycle methods are called by the broker's start-up and shutdown thread, the promotion
 * ones by the admin executor that serves the promotion, {@link #leaveWhenFenced} by the HA event loop that
 * noticed the fence; that one only hands the leave to this presence's own thread
 * ({@code BrokerNameServerPresence}), so the event loop never waits for a NameServer. The registration state
 * is guarded by this object.
 */
public final class NameServerPresence {
    private static final Logger log = LoggerFactory.getLogger(NameServerPresence.class);
    private static final long MASTER_ID = 0;

    private final NameServers nameServers;
    private final BrokerRegistration self;
    private final ReplicationView replication;
    private final Supplier<TopicConfigSerializeWrapper> topics;
    private final LongSupplier topicsVersion;
    private final Supplier<NettyRemotingClient> clients;
    /** Runs the leaves that fences ask for; its thread is created at the first fence. */
    private final ExecutorService fenceThread;
    /** The registration in force, null while not registered. */
    private NameServerRegistrar registrar;
    /** Once fenced, this broker never registers again (until it restarts). */
    private boolean fenced;
    private boolean started;
    private boolean shutdown;

    /**
     * @param self          this broker as it registers, with its configured brokerId (a master registers as 0)
     * @param topics        the current topic table, read at each registration
     * @param topicsVersion a number that changes whenever the topic table does
     * @param clients       makes a remoting client for each conversation with the NameServers; whoever
     *                      asks for one closes it
     */
    public NameServerPresence(NameServers nameServers, BrokerRegistration self, ReplicationView replication,
                              Supplier<TopicConfigSerializeWrapper> topics, LongSupplier topicsVersion,
                              Supplier<NettyRemotingClient> clients) {
        this.nameServers = nameServers;
        this.self = self;
        this.replication = replication;
        this.topics = topics;
        this.topicsVersion = topicsVersion;
        this.clients = clients;
        this.fenceThread = Executors.newSingleThreadExecutor(DaemonThreads.named("BrokerNameServerPresence"));
    }

    /**
     * Fences this master when a NameServer routes its broker name to another master. Call before the broker
     * serves, so that a deposed master never accepts a write. Nothing for a slave.
     */
    public void fenceIfRoutedToAnotherMaster() {
        if (replication.isSlave()) {
            return;
        }
        otherMaster(Set.of(self.brokerAddr())).ifPresent(reason -> replication.fence(reason
            + "; reconfigure this broker as a SLAVE of that master, or restart it once the NameServers have dropped"
            + " that master"));
    }

    /** Registers with every NameServer, now and every {@code registerPeriodMs}, unless this master is fenced. */
    public synchronized void start() {
        if (started || shutdown) {
            return;
        }
        started = true;
        register();
    }

    /**
     * Before a promotion: a master on the NameServers other than this broker and the master it followed means
     * another slave was promoted already; this one must not become a second master.
     *
     * @return why another master serves the group, or empty
     */
    public Optional<String> anotherPromotedMaster() {
        String followed = replication.followedMasterAddr();
        return otherMaster(followed.isEmpty() ? Set.of(self.brokerAddr()) : Set.of(self.brokerAddr(), followed));
    }

    /** After a promotion: leaves the NameServers as a slave and registers again as the group's master (brokerId 0). */
    public synchronized void registerAgainAfterPromotion() {
        if (!started || shutdown || registrar == null) {
            return;
        }
        leave();
        register();
    }

    /**
     * Controller mode, after a role change the controller decided: leaves the NameServers under the old identity and
     * registers at once with the new one (a master as brokerId 0, a slave with its controller id). A fence of the
     * previous role no longer holds: the controller's role is the new truth.
     */
    public synchronized void registerAgain() {
        if (!started || shutdown) {
            return;
        }
        fenced = false;
        leave();
        register();
    }

    /**
     * The master's HA address ({@code haServerAddr}) as the NameServers last answered this slave's registration, or
     * empty (not registered yet, or the master not registered or not alive there).
     */
    public synchronized Optional<String> masterHaServerAddr() {
        NameServerRegistrar r = registrar;
        return r == null || r.haServerAddr().isEmpty() ? Optional.empty() : Optional.of(r.haServerAddr());
    }

    /** Registers once more soon (a slave asking the NameServers for its master's HA address). Any thread. */
    public void registerNow() {
        NameServerRegistrar r;
        synchronized (this) {
            r = registrar;
        }
        if (r != null) {
            r.registerSoon();
        }
    }

    /**
     * This master was fenced (a newer master exists): unregisters on this presence's thread, and registers no
     * more. Returns at once; any thread.
     */
    public void leaveWhenFenced(String reason) {
        try {
            fenceThread.execute(() -> leaveFenced(reason));
        } catch (RejectedExecutionException e) {
            // shut down: shutdown() has unregistered already
        }
    }

    private synchronized void leaveFenced(String reason) {
        fenced = true;
        if (registrar == null || shutdown) {
            return;
        }
        leave();
        log.error("fenced ({}): unregistered from the NameServers, so that clients are routed to the newer master only",
            reason);
    }

    /** Stops registering and unregisters from every NameServer. Idempotent. */
    public synchronized void shutdown() {
        if (shutdown) {
            return;
        }
        shutdown = true;
        fenceThread.shutdownNow();
        leave();
    }

    /**
     * The master's remoting address as the NameServers last answered this slave's registration, or empty (no
     * NameServers, not registered yet, or the master not registered).
     */
    public synchronized Optional<String> masterAddr() {
        NameServerRegistrar r = registrar;
        return r == null || r.masterAddr().isEmpty() ? Optional.empty() : Optional.of(r.masterAddr());
    }

    /** Whether a registration is in force (the broker registers periodically). */
    synchronized boolean registered() {
        return registrar != null;
    }

    private void register() {
        if (nameServers.isEmpty()) {
            return;
        }
        if (!replication.hasRole()) {
            log.info("not registering with the NameServers before the controller gives this broker a role");
            return;
        }
        if (fenced || !replication.isSlave() && !replication.acceptsWrites()) {
            log.error("not registering with the NameServers: this master is fenced (a newer master exists)");
            return;
        }
        // a promoted slave registers as the group's master
        BrokerRegistration as = self.withBrokerId(replication.isSlave() ? replication.slaveBrokerId(self.brokerId()) : MASTER_ID);
        NameServerRegistrar r = new NameServerRegistrar(nameServers.addresses(), as, topics, topicsVersion, clients.get(),
            nameServers.timeoutMs());
        registrar = r;
        r.start(nameServers.registerPeriodMs());
    }

    /** Unregisters the registration in force, if any. */
    private void leave() {
        NameServerRegistrar r = registrar;
        registrar = null;
        if (r != null) {
            r.shutdown();
        }
    }

    private Optional<String> otherMaster(Set<String> expected) {
        if (nameServers.isEmpty()) {
            return Optional.empty();
        }
        try (NettyRemotingClient client = clients.get()) {
            return NameServerMasterCheck.otherMaster(nameServers.addresses(), self.brokerName(), expected, client,
                nameServers.timeoutMs());
        }
    }
}
