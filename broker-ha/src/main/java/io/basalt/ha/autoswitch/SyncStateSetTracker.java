package io.basalt.ha.autoswitch;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller-mode master's SyncStateSet, with RocketMQ 5.2.0's rules ({@code AutoSwitchHAService}):
 * the replicas (by controller broker id, the master's own included) that hold everything the master
 * confirmed.
 *
 * <ul>
 * <li>A slave <b>joins</b> when an acknowledgement that caught up with the master reaches the
 *     confirmOffset and the start of the master's current epoch, unless it is an async learner.</li>
 * <li>A member <b>leaves</b> when its connection closes, or when it has not been caught up for
 *     {@code haMaxTimeSlaveNotCatchup} ({@link #shrink}).</li>
 * <li>A change is a <em>proposal</em>: the listener hears it (the role manager sends
 *     ALTER_SYNC_STATE_SET to the Controller) and {@link #adopt} installs what the Controller accepted.
 *     While a proposal is in flight, {@link #effective()} is the union of the adopted and the proposed
 *     set, so neither a put's wait nor the confirmOffset ever counts on fewer replicas than either.</li>
 * </ul>
 *
 * <p>Threads: every method may be called from any thread (one lock); the listener is called after the
 * lock is released, on the thread that made the change, and must not block.
 */
public final class SyncStateSetTracker {
    private static final Logger LOG = LoggerFactory.getLogger(SyncStateSetTracker.class);

    private final long masterId;
    private final long maxTimeNotCatchupMs;
    private final LongSupplier clockMs;
    private final Map<Long, Long> lastCaughtUpMs = new HashMap<>();
    private Set<Long> adopted;
    /** The set sent to the Controller and not yet answered, or null. */
    private Set<Long> proposed;
    private volatile Set<Long> effective;
    private volatile Consumer<Set<Long>> listener = set -> { };
    private volatile Runnable effectiveChanged = () -> { };

    /** Starts with the set {master}; the role manager {@link #adopt}s the Controller's set. */
    public SyncStateSetTracker(long masterId, long maxTimeNotCatchupMs, LongSupplier clockMs) {
        this.masterId = masterId;
        this.maxTimeNotCatchupMs = maxTimeNotCatchupMs;
        this.clockMs = clockMs;
        this.adopted = Set.of(masterId);
        this.effective = adopted;
    }

    /** Who hears each proposed set (to send ALTER_SYNC_STATE_SET); set before the master starts. */
    public void onProposal(Consumer<Set<Long>> listener) {
        this.listener = listener;
    }

    /** The master's own hook: told after every change of {@link #effective()} (the write path recomputes). */
    public void onEffectiveChange(Runnable hook) {
        this.effectiveChanged = hook;
    }

    public long masterId() {
        return masterId;
    }

    /** The set in force: the adopted one, or its union with the proposal in flight. */
    public Set<Long> effective() {
        return effective;
    }

    /** The set the Controller last accepted (or gave at election). */
    public synchronized Set<Long> adopted() {
        return adopted;
    }

    /** The proposal in flight, or null. */
    public synchronized Set<Long> proposed() {
        return proposed;
    }

    /** The Controller's SyncStateSet (election result, ALTER_SYNC_STATE_SET answer, replica-info poll). */
    public void adopt(Set<Long> controllerSet) {
        synchronized (this) {
            Set<Long> next = sorted(controllerSet);
            next.add(masterId);
            adopted = Set.copyOf(next);
            proposed = null;
            publish();
        }
        LOG.info("SyncStateSet adopted: {}", controllerSet);
        effectiveChanged.run();
    }

    /** The Controller refused the proposal (or it timed out): the adopted set stays in force. */
    public void abandonProposal() {
        synchronized (this) {
            proposed = null;
            publish();
        }
        effectiveChanged.run();
    }

    /**
     * A slave acknowledged {@code ackOffset}; {@code caughtUp} when that covers what the master had when
     * it last sent to it. Such an ack refreshes its caught-up time and may make it join.
     */
    public void onAck(long slaveId, long ackOffset, boolean caughtUp, boolean asyncLearner, long confirmOffset,
                      long epochStartOffset) {
        Set<Long> change = null;
        synchronized (this) {
            if (!caughtUp || slaveId == masterId) {
                return;
            }
            lastCaughtUpMs.put(slaveId, clockMs.getAsLong());
            Set<Long> base = base();
            if (!asyncLearner && !base.contains(slaveId) && ackOffset >= confirmOffset && ackOffset >= epochStartOffset) {
                LOG.info("Slave {} caught up (ack {}, confirmOffset {}, epoch start {}): proposing it for the SyncStateSet",
                    slaveId, ackOffset, confirmOffset, epochStartOffset);
                Set<Long> next = sorted(base);
                next.add(slaveId);
                change = propose(next);
            }
        }
        notifyListener(change);
    }

    /** The master had nothing more to send to this slave: it is caught up now. */
    public synchronized void onCaughtUp(long slaveId) {
        if (slaveId != masterId) {
            lastCaughtUpMs.put(slaveId, clockMs.getAsLong());
        }
    }

    /** A slave's connection closed: it leaves the set at once. */
    public void onDisconnect(long slaveId) {
        Set<Long> change = null;
        synchronized (this) {
            lastCaughtUpMs.remove(slaveId);
            Set<Long> base = base();
            if (slaveId != masterId && base.contains(slaveId)) {
                LOG.warn("Slave {} of the SyncStateSet disconnected: proposing the set without it", slaveId);
                Set<Long> next = sorted(base);
                next.remove(slaveId);
                change = propose(next);
            }
        }
        notifyListener(change);
    }

    /**
     * The periodic check: members not caught up for {@code haMaxTimeSlaveNotCatchup}, or not connected
     * ({@code connected} are the slaves with a connection), leave. Returns the set proposed, or null.
     */
    public Set<Long> shrink(Collection<Long> connected) {
        Set<Long> change = null;
        synchronized (this) {
            long now = clockMs.getAsLong();
            Set<Long> base = base();
            Set<Long> next = sorted(base);
            for (long id : base) {
                if (id == masterId) {
                    continue;
                }
                Long caughtUp = lastCaughtUpMs.get(id);
                if (!connected.contains(id) || caughtUp == null || now - caughtUp > maxTimeNotCatchupMs) {
                    LOG.warn("Slave {} leaves the SyncStateSet: {}", id, !connected.contains(id) || caughtUp == null
                        ? "not connected" : "not caught up for " + (now - caughtUp) + " ms > haMaxTimeSlaveNotCatchup "
                        + maxTimeNotCatchupMs);
                    next.remove(id);
                }
            }
            if (!next.equals(base)) {
                change = propose(next);
            }
        }
        notifyListener(change);
        return change;
    }

    private Set<Long> base() {
        return proposed != null ? proposed : adopted;
    }

    private Set<Long> propose(Set<Long> next) {
        proposed = Set.copyOf(next);
        publish();
        return proposed;
    }

    private void publish() {
        Set<Long> union = sorted(adopted);
        if (proposed != null) {
            union.addAll(proposed);
        }
        effective = Set.copyOf(union);
    }

    private void notifyListener(Set<Long> change) {
        if (change != null) {
            effectiveChanged.run();
            try {
                listener.accept(change);
            } catch (RuntimeException e) {
                LOG.error("SyncStateSet listener failed for {}", change, e);
            }
        }
    }

    private static Set<Long> sorted(Collection<Long> ids) {
        return new TreeSet<>(ids);
    }

    @Override
    public synchronized String toString() {
        return "SyncStateSet{adopted=" + adopted + ", proposed=" + proposed + '}';
    }
}
