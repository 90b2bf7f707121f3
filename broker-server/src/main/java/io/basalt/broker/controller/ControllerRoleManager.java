package io.basalt.broker.controller;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.controller.ControllerApi.BrokerHeartbeat;
import io.basalt.broker.controller.ControllerApi.ElectionResult;
import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import io.basalt.broker.controller.ControllerApi.SyncStateSet;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.ha.EpochFile;
import io.basalt.ha.Replication;
import io.basalt.ha.SlaveStatus;

/**
 * The broker's role in controller mode, as the RocketMQ Controller decides it (RocketMQ 5.2.0's
 * {@code ReplicasManager}, steps 6–9 of its start sequence): registers (through a {@link Registrar}), heartbeats
 * every {@code brokerHeartbeatInterval}, asks for an election when the broker set has no master, polls
 * CONTROLLER_GET_REPLICA_INFO every {@code syncBrokerMetadataPeriod} and takes the 1008 pushes
 * ({@link #onRoleChangeNotified}); a newer {@code masterEpoch} changes the role through {@link Replication}, then
 * tells the broker ({@link RoleListener}) so that it starts or stops its master-only services and registers with
 * the NameServers. A master keeps its SyncStateSet ({@link SyncStateSetRule}) every {@code checkSyncStateSetPeriod}
 * and when a slave connects or leaves, through CONTROLLER_ALTER_SYNC_STATE_SET.
 *
 * <p>Beyond RocketMQ (pain point C1, apache/rocketmq#6662): a master whose requests have not reached the Controller for
 * {@code controllerHeartBeatTimeoutMills} — after which the Controller may elect another master — stops accepting
 * writes ({@link Replication#suspendWrites}) and resumes once the Controller names it master again with the same
 * epoch.
 *
 * <p>Threads: {@code ControllerRoleManager} does registration, polling, elections, role changes and the
 * SyncStateSet; {@code ControllerHeartbeat} sends heartbeats and watches the contact with the Controller, so that a
 * slow role change never delays a heartbeat. The getters may be called from any thread.
 */
public final class ControllerRoleManager {
    private static final Logger log = LoggerFactory.getLogger(ControllerRoleManager.class);
    /** RocketMQ retries the whole start sequence every 5 s. */
    private static final long REGISTER_RETRY_MS = 5_000;

    /** The broker's registration with the Controller (steps 3–6): its controller id and the Controller's answer. */
    @FunctionalInterface
    public interface Registrar {
        ControllerRegistration.Registered register() throws ControllerException, IOException;
    }

    /** What the broker does around a role change; called on the role manager's thread. */
    public interface RoleListener {
        /**
         * Before this broker becomes master: the last chance to copy metadata from the master it followed
         * ({@code previousMaster}, empty when it followed none).
         */
        default void beforeMaster(Optional<String> previousMaster) {
        }

        /** This broker became the master of {@code epoch} (or its epoch changed). */
        void becameMaster(long epoch);

        /** This broker became a slave of the master at {@code masterAddress} (remoting) for {@code epoch}. */
        void becameSlave(long epoch, String masterAddress);

        /** The master's HA address as the NameServers know it ({@code haServerAddr}); empty while unknown. */
        Optional<InetSocketAddress> masterHaAddress(String masterAddress);

        /** The SyncStateSet changed (a master's, as the Controller adopted it). */
        default void syncStateSetChanged(SyncStateSet set) {
        }
    }

    /** The keys of controller mode this manager needs. */
    public record Settings(String clusterName, String brokerName, String brokerAddr, long heartbeatIntervalMs,
                           long heartbeatTimeoutMs, int electionPriority, long syncBrokerMetadataPeriodMs,
                           long checkSyncStateSetPeriodMs, long syncControllerMetadataPeriodMs,
                           long maxTimeNotCatchupMs) {
    }

    /** This broker's role as the manager last applied it. */
    public enum Role { UNASSIGNED, MASTER, SLAVE }

    private final ControllerApi controller;
    private final Registrar registrar;
    private final Settings settings;
    private final Replication replication;
    private final EpochFile epochs;
    private final RoleListener listener;
    private final LongSupplier clock;
    private final SyncStateSetRule rule;
    private final ScheduledExecutorService roleThread;
    private final ScheduledExecutorService heartbeatThread;
    private final AtomicLong elections = new AtomicLong();
    private final AtomicLong roleChanges = new AtomicLong();

    private volatile long brokerId = -1;
    private volatile boolean registered;
    private volatile Role role = Role.UNASSIGNED;
    private volatile int masterEpoch = -1;
    private volatile String masterAddress = "";
    private volatile long masterBrokerId = -1;
    private volatile SyncStateSet syncStateSet = new SyncStateSet(Set.of(), 0);
    /** When the broker set last had no master this broker knows of; -1 while it has one. */
    private volatile long noMasterSinceMs;
    /** When the last request that the Controller answered was sent. */
    private volatile long lastContactMs;
    /** The slaves' ids last seen connected (role thread). */
    private Set<Long> connectedSlaves = Set.of();
    private volatile boolean started;
    private volatile boolean shutdown;

    public ControllerRoleManager(ControllerApi controller, Registrar registrar, Settings settings, Replication replication,
                                 EpochFile epochs, RoleListener listener, LongSupplier clock) {
        this.controller = controller;
        this.registrar = registrar;
        this.settings = settings;
        this.replication = replication;
        this.epochs = epochs;
        this.listener = listener;
        this.clock = clock;
        this.rule = new SyncStateSetRule(settings.maxTimeNotCatchupMs(), clock);
        this.roleThread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("ControllerRoleManager"));
        this.heartbeatThread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("ControllerHeartbeat"));
        this.noMasterSinceMs = clock.getAsLong();
        this.lastContactMs = clock.getAsLong();
    }

    /** Registers (retrying until the Controller answers), then heartbeats, polls and checks on schedule. */
    public synchronized void start() {
        if (started || shutdown) {
            return;
        }
        started = true;
        roleThread.execute(this::registerAndApply);
        heartbeatThread.scheduleWithFixedDelay(guarded("heartbeat", this::heartbeatTick), settings.heartbeatIntervalMs(),
            settings.heartbeatIntervalMs(), TimeUnit.MILLISECONDS);
        roleThread.scheduleWithFixedDelay(guarded("polling the replica info", this::poll),
            settings.syncBrokerMetadataPeriodMs(), settings.syncBrokerMetadataPeriodMs(), TimeUnit.MILLISECONDS);
        // the leader is found on demand too; the lookup keeps it fresh, as RocketMQ's broker does
        roleThread.scheduleWithFixedDelay(guarded("looking the Controller's leader up", this::lookUpLeader),
            settings.syncControllerMetadataPeriodMs(), settings.syncControllerMetadataPeriodMs(), TimeUnit.MILLISECONDS);
        roleThread.scheduleWithFixedDelay(guarded("checking the SyncStateSet", this::checkSyncStateSet),
            settings.checkSyncStateSetPeriodMs(), settings.checkSyncStateSetPeriodMs(), TimeUnit.MILLISECONDS);
        log.info("controller mode: broker {} of cluster {} registers with the Controller; no role until it answers",
            settings.brokerName(), settings.clusterName());
    }

    /** Stops every schedule (the broker shuts replication down itself). Idempotent. */
    public void shutdown() {
        shutdown = true;
        heartbeatThread.shutdownNow();
        roleThread.shutdownNow();
        try {
            roleThread.awaitTermination(5, TimeUnit.SECONDS);
            heartbeatThread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A 1008 NOTIFY_BROKER_ROLE_CHANGED push: applied on the role thread when its epoch is newer. Any thread. */
    public void onRoleChangeNotified(ReplicaInfo info) {
        submit("applying a pushed role change", () -> {
            if (info.masterEpoch() > masterEpoch) {
                log.info("controller pushed a role change: master {} at {}, epoch {}", info.masterBrokerId(),
                    info.masterAddress(), info.masterEpoch());
                apply(info, "pushed by the Controller");
            }
        });
    }

    /**
     * Asks the Controller for the broker set's state now, on the role thread, and applies its answer (a 1008 push
     * the broker does not trust as it is: the Controller does not sign it). Any thread.
     */
    public void askControllerNow(String why) {
        submit("asking the Controller after " + why, this::poll);
    }

    // ---- what metrics and tools read ----

    public Role role() {
        return role;
    }

    /** The controller's masterEpoch this broker applied last, -1 before any. */
    public int masterEpoch() {
        return masterEpoch;
    }

    /** This broker's controller id, -1 before registration. */
    public long brokerId() {
        return brokerId;
    }

    /** The master's remoting address as the Controller named it, empty while none. */
    public String masterAddress() {
        return masterAddress;
    }

    public long masterBrokerId() {
        return masterBrokerId;
    }

    /** The master's SyncStateSet as last adopted (a slave knows it from the Controller's answers). */
    public SyncStateSet syncStateSet() {
        return syncStateSet;
    }

    /** Times this broker became master (an election that named it, including a first start as master). */
    public long elections() {
        return elections.get();
    }

    /** Role or epoch changes applied. */
    public long roleChanges() {
        return roleChanges.get();
    }

    /** How long the broker set has been without a master this broker knows of, ms; 0 while it has one. */
    public long timeWithoutMasterMs() {
        long since = noMasterSinceMs;
        return since < 0 ? 0 : Math.max(0, clock.getAsLong() - since);
    }

    /** Milliseconds since a request last reached the Controller (it answered). */
    public long sinceControllerContactMs() {
        return Math.max(0, clock.getAsLong() - lastContactMs);
    }

    // ---- role thread ----

    private void registerAndApply() {
        if (shutdown) {
            return;
        }
        try {
            long sent = clock.getAsLong();
            ControllerRegistration.Registered r = registrar.register();
            contact(sent);
            brokerId = r.brokerId();
            registered = true;
            log.info("registered with the Controller as broker id {} of {}", brokerId, settings.brokerName());
            heartbeatThread.execute(guarded("heartbeat", this::heartbeatTick));
            apply(r.replicaInfo(), "registration");
        } catch (ControllerException | IOException | RuntimeException e) {
            log.warn("registration with the Controller failed, trying again in {} ms: {}", REGISTER_RETRY_MS, e.toString());
            schedule(this::registerAndApply, REGISTER_RETRY_MS);
        }
    }

    /** Not counted as contact: any node answers it, also one cut off from the leader. */
    private void lookUpLeader() throws ControllerException {
        controller.metadata();
    }

    private void poll() throws ControllerException {
        if (!registered) {
            return;
        }
        long sent = clock.getAsLong();
        ReplicaInfo info;
        try {
            info = controller.replicaInfo(settings.brokerName());
        } catch (ControllerException e) {
            if (e.code() == ControllerResponseCode.BROKER_METADATA_NOT_EXIST) {
                contact(sent);
                log.warn("the Controller does not know broker set {}: registering again", settings.brokerName());
                registered = false;
                registerAndApply();
                return;
            }
            throw e;
        }
        contact(sent);
        apply(info, "polled");
        followWhenHaAddressKnown();
    }

    /** Applies what the Controller says of the set: a newer epoch changes the role; no master asks for an election. */
    private void apply(ReplicaInfo info, String source) {
        if (!info.hasMaster()) {
            if (noMasterSinceMs < 0) {
                noMasterSinceMs = clock.getAsLong();
            }
            masterAddress = "";
            masterBrokerId = -1;
            if (role == Role.MASTER) {
                replication.suspendWrites("the Controller names no master for epoch " + info.masterEpoch());
            }
            elect();
            return;
        }
        noMasterSinceMs = -1;
        boolean me = info.masterBrokerId() == brokerId;
        if (info.masterEpoch() < masterEpoch) {
            return;
        }
        if (info.masterEpoch() == masterEpoch && role == (me ? Role.MASTER : Role.SLAVE)) {
            if (me) {
                // the Controller confirms this master: writes held back for want of contact go on
                replication.resumeWrites();
                adopt(info.syncStateSet());
            } else {
                syncStateSet = info.syncStateSet();
            }
            return;
        }
        long startNs = System.nanoTime();
        long syncedNs = startNs;
        try {
            if (me) {
                listener.beforeMaster(role == Role.SLAVE && !masterAddress.isEmpty() ? Optional.of(masterAddress)
                    : Optional.empty());
                syncedNs = System.nanoTime();
                replication.becomeMaster(info.masterEpoch(), brokerId);
                role = Role.MASTER;
                elections.incrementAndGet();
            } else {
                replication.becomeSlave(info.masterEpoch(), brokerId,
                    listener.masterHaAddress(info.masterAddress()).orElse(null));
                role = Role.SLAVE;
            }
        } catch (IOException | RuntimeException e) {
            log.error("applying the role of epoch {} ({}, master {} at {}) failed; trying again at the next poll: {}",
                info.masterEpoch(), source, info.masterBrokerId(), info.masterAddress(), e.toString());
            return;
        }
        masterEpoch = info.masterEpoch();
        masterBrokerId = info.masterBrokerId();
        masterAddress = info.masterAddress();
        syncStateSet = info.syncStateSet();
        roleChanges.incrementAndGet();
        log.warn("controller mode ({}): {} of broker set {} with epoch {}, master {} at {}, SyncStateSet {}", source,
            role, settings.brokerName(), masterEpoch, masterBrokerId, masterAddress, syncStateSet);
        if (me) {
            long masterNs = System.nanoTime();
            listener.becameMaster(masterEpoch);
            listener.syncStateSetChanged(syncStateSet);
            // the failover's broker-side critical path, step by step (producers wait for the registration)
            log.info("took over as master of epoch {} in {} ms: last metadata sync {} ms, replication role {} ms, "
                + "master services {} ms (the NameServer registration runs on its own thread)", masterEpoch, millis(System.nanoTime() - startNs),
                millis(syncedNs - startNs), millis(masterNs - syncedNs), millis(System.nanoTime() - masterNs));
        } else {
            listener.becameSlave(masterEpoch, masterAddress);
            followWhenHaAddressKnown();
        }
    }

    /** A slave whose master's HA address was unknown follows it once the NameServers name it. */
    private void followWhenHaAddressKnown() {
        if (role != Role.SLAVE || replication.masterHaAddress() != null || masterAddress.isEmpty()) {
            return;
        }
        listener.masterHaAddress(masterAddress).ifPresent(ha -> replication.becomeSlave(masterEpoch, brokerId, ha));
    }

    private void elect() {
        if (!registered) {
            return;
        }
        long sent = clock.getAsLong();
        try {
            ElectionResult result = controller.electMaster(settings.clusterName(), settings.brokerName(), brokerId);
            contact(sent);
            log.info("election asked for broker set {}: {} master {} at {} epoch {}", settings.brokerName(),
                result.elected() ? "new" : "existing", result.master().masterBrokerId(), result.master().masterAddress(),
                result.master().masterEpoch());
            if (result.master().hasMaster()) {
                apply(result.master(), result.elected() ? "elected" : "existing master");
            }
        } catch (ControllerException e) {
            if (e.code() != ControllerException.UNREACHABLE) {
                contact(sent);
            }
            if (e.code() == ControllerResponseCode.BROKER_NEED_TO_BE_REGISTERED) {
                registered = false;
                registerAndApply();
                return;
            }
            log.warn("election for broker set {} not done (code {}): {}; asking again at the next poll",
                settings.brokerName(), e.code(), e.getMessage());
        }
    }

    /** A master's SyncStateSet: the rule's set, proposed to the Controller when it differs. */
    private void checkSyncStateSet() throws ControllerException {
        if (role != Role.MASTER || !replication.acceptsWrites()) {
            return;
        }
        SyncStateSet current = syncStateSet;
        List<SlaveStatus> slaves = replication.slaves();
        List<EpochFile.Entry> history = epochs.entries();
        long epochStart = history.isEmpty() ? 0 : history.get(history.size() - 1).startOffset();
        // a controller-mode master's SyncStateSetTracker proposes changes (RocketMQ's join and leave rules over the
        // AutoSwitch connections); the rule computes them where no tracker runs
        Set<Long> next = replication.syncStateSetProposal().orElseGet(() -> rule.next(brokerId, current.brokerIds(),
            replication.commitLogMaxOffset(), epochStart, slaves));
        if (next.equals(current.brokerIds())) {
            return;
        }
        long sent = clock.getAsLong();
        try {
            SyncStateSet adopted = controller.alterSyncStateSet(settings.brokerName(), brokerId, masterEpoch,
                new SyncStateSet(next, current.epoch()));
            contact(sent);
            log.info("SyncStateSet of {} altered: {} -> {}", settings.brokerName(), current, adopted);
            adopt(adopted);
        } catch (ControllerException e) {
            if (e.code() == ControllerException.UNREACHABLE) {
                throw e;
            }
            contact(sent);
            log.warn("the Controller refused the SyncStateSet {} (code {}): {}", next, e.code(), e.getMessage());
            replication.abandonSyncStateSetProposal();
            if (e.code() == ControllerResponseCode.FENCED_MASTER_EPOCH || e.code() == ControllerResponseCode.INVALID_MASTER
                || e.code() == ControllerResponseCode.FENCED_SYNC_STATE_SET_EPOCH) {
                poll();
            }
        }
    }

    private void adopt(SyncStateSet set) {
        if (!set.equals(syncStateSet) && set.epoch() >= syncStateSet.epoch()) {
            syncStateSet = set;
            listener.syncStateSetChanged(set);
        }
    }

    // ---- heartbeat thread ----

    private void heartbeatTick() {
        if (!registered) {
            return;
        }
        List<EpochFile.Entry> history = epochs.entries();
        int epoch = history.isEmpty() ? -1 : (int) history.get(history.size() - 1).epoch();
        long max = replication.commitLogMaxOffset();
        controller.heartbeat(new BrokerHeartbeat(settings.clusterName(), settings.brokerAddr(), settings.brokerName(),
            brokerId, epoch, max, max, settings.heartbeatTimeoutMs(), settings.electionPriority()));
        if (role == Role.MASTER && sinceControllerContactMs() > settings.heartbeatTimeoutMs()) {
            replication.suspendWrites("no answer from the Controller for " + sinceControllerContactMs() + " ms (more than"
                + " controllerHeartBeatTimeoutMills " + settings.heartbeatTimeoutMs() + "): it may have elected another"
                + " master");
        }
        if (role == Role.MASTER) {
            Set<Long> connected = new java.util.TreeSet<>();
            for (SlaveStatus s : replication.slaves()) {
                connected.add(s.brokerId());
            }
            if (!connected.equals(connectedSlaves)) {
                connectedSlaves = Set.copyOf(connected);
                submit("checking the SyncStateSet after a slave came or went", this::checkSyncStateSetQuietly);
            }
        }
    }

    private void checkSyncStateSetQuietly() {
        try {
            checkSyncStateSet();
        } catch (ControllerException e) {
            log.warn("checking the SyncStateSet failed: {}", e.getMessage());
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private void contact(long sentMs) {
        if (sentMs > lastContactMs) {
            lastContactMs = sentMs;
        }
    }

    private interface Task {
        void run() throws Exception;
    }

    private Runnable guarded(String what, Task task) {
        return () -> {
            try {
                task.run();
            } catch (ControllerException e) {
                log.warn("{}: the Controller did not answer: {}", what, e.getMessage());
            } catch (Exception e) {
                log.error("{} failed", what, e);
            }
        };
    }

    private void submit(String what, Task task) {
        try {
            roleThread.execute(guarded(what, task));
        } catch (RejectedExecutionException e) {
            // shut down
        }
    }

    private void schedule(Runnable task, long delayMs) {
        try {
            roleThread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // shut down
        }
    }
}
