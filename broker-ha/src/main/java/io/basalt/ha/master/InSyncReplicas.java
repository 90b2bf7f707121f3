package io.basalt.ha.master;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.EpochFile;
import io.basalt.ha.HAConfig;
import io.basalt.ha.autoswitch.SyncStateSetTracker;
import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.spi.ReplicaWait;

/**
 * A controller-mode master's write path and confirmOffset, as RocketMQ 5.2.0 defines them
 * ({@code CommitLog.asyncPutMessage}, {@code AutoSwitchHAService}, {@code GroupTransferService}):
 *
 * <ul>
 * <li>A put (WAIT=true) is refused before anything is written, IN_SYNC_REPLICAS_NOT_ENOUGH, while the
 *     SyncStateSet has fewer than {@code minInSyncReplicas} members.</li>
 * <li>It then waits for every SyncStateSet member with {@code allAckInSyncStateSet=true}, else for
 *     {@code inSyncReplicas} replicas counting the master: with the default 1 it waits for no slave
 *     at all (RocketMQ's rule, kept for compatibility). A wait longer than {@code slaveTimeout}
 *     answers FLUSH_SLAVE_TIMEOUT (the message is stored).</li>
 * <li>confirmOffset = the least acknowledgement of the SyncStateSet's slaves, bounded by the
 *     master's end, computed only from the set in force (a member without a connection holds it
 *     where it was). With {@code allAckInSyncStateSet=true} and more than one member, the store's
 *     dispatch, so what consumers see, stops there; otherwise it is the master's end.</li>
 * </ul>
 *
 * <p>Threads: {@link #admit} and {@link #await} on put threads; the rest on HA event loops; the
 * state is the tracker's (locked) and volatile fields.
 */
final class InSyncReplicas implements ReplicaWait {
    private static final Logger LOG = LoggerFactory.getLogger(InSyncReplicas.class);

    private final HAService service;
    private final MessageStore store;
    private final EpochFile epochs;
    private final HAConfig config;
    private final SyncStateSetTracker syncStateSet;
    /** Waits for slaves' acks; null when no put waits (inSyncReplicas=1 without allAckInSyncStateSet). */
    private final GroupTransferService transfer;
    private volatile long confirmOffset;
    /** Why confirmOffset must not move (a master cut off from the Controller), or null. */
    private volatile String confirmHold;

    InSyncReplicas(HAService service, MessageStore store, EpochFile epochs, HAConfig config, SyncStateSetTracker syncStateSet) {
        this.service = service;
        this.store = store;
        this.epochs = epochs;
        this.config = config;
        this.syncStateSet = syncStateSet;
        boolean waits = config.allAckInSyncStateSet() || config.inSyncReplicas() > 1;
        this.transfer = waits ? new GroupTransferService(new GroupTransferService.SlaveAcks() {
            @Override
            public long bestAckOffset() {
                return ackedByEnough();
            }

            @Override
            public boolean hasSlaveInSync(long gap) {
                // controller mode never answers SLAVE_NOT_AVAILABLE: a put waits, then times out
                return true;
            }
        }, config.slaveTimeoutMs(), Long.MAX_VALUE, store.durabilityErrorPolicy()) : null;
        this.confirmOffset = store.getMaxPhyOffset();
        syncStateSet.onEffectiveChange(this::onChange);
    }

    void start() {
        if (transfer != null) {
            transfer.start();
        }
        store.replicatedLog().setReplicaWait(this);
        if (config.allAckInSyncStateSet()) {
            store.replicatedLog().setDispatchLimit(this::dispatchLimit);
        }
        LOG.info("Controller mode: a put (WAIT=true) is refused while the SyncStateSet has fewer than minInSyncReplicas={}"
            + " members; it then waits for {} (at most slaveTimeout {} ms){}", config.minInSyncReplicas(),
            config.allAckInSyncStateSet() ? "every SyncStateSet member"
                : config.inSyncReplicas() <= 1 ? "no slave (inSyncReplicas=1, RocketMQ's default)"
                : (config.inSyncReplicas() - 1) + " slave(s) (inSyncReplicas=" + config.inSyncReplicas() + ")",
            config.slaveTimeoutMs(), config.allAckInSyncStateSet()
                ? "; consumers see only what every member holds (confirmOffset)" : "");
    }

    void shutdown() {
        store.replicatedLog().setReplicaWait(ReplicaWait.STOPPED);
        if (config.allAckInSyncStateSet()) {
            store.replicatedLog().setDispatchLimit(null);
        }
        if (transfer != null) {
            transfer.shutdown();
        }
    }

    SyncStateSetTracker syncStateSet() {
        return syncStateSet;
    }

    long errorCount() {
        return transfer == null ? 0 : transfer.errorCount();
    }

    @Override
    public PutMessageStatus admit(BrokerMessage message) {
        return message.waitStoreMsgOk() && syncStateSet.effective().size() < config.minInSyncReplicas()
            ? PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH : null;
    }

    @Override
    public CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result) {
        if (transfer == null) {
            return CompletableFuture.completedFuture(PutMessageStatus.PUT_OK);
        }
        return transfer.await(message, result);
    }

    /** A slave acknowledged, joined or left: recompute confirmOffset and settle waiting puts. */
    void onChange() {
        if (confirmHold == null) {
            confirmOffset = computeConfirmOffset();
        }
        if (transfer != null) {
            transfer.onAck();
        }
    }

    /** The confirmOffset frames carry: the computed one when it is enforced, else the master's end (RocketMQ's). */
    long frameConfirmOffset() {
        return enforced() ? confirmOffset : store.getMaxPhyOffset();
    }

    long confirmOffset() {
        return confirmOffset;
    }

    /**
     * Holds confirmOffset (so what consumers see with allAckInSyncStateSet) where it is, for
     * {@code reason}, until {@link #releaseConfirmOffset}: a master that lost the Controller may
     * already be deposed, and its slaves' acks must not make more of its log visible
     * (apache/rocketmq#6662).
     */
    void holdConfirmOffset(String reason) {
        if (confirmHold == null) {
            LOG.warn("confirmOffset held at {}: {}", confirmOffset, reason);
        }
        confirmHold = reason;
    }

    void releaseConfirmOffset() {
        if (confirmHold != null) {
            LOG.info("confirmOffset released (was held: {})", confirmHold);
            confirmHold = null;
            onChange();
        }
    }

    private boolean enforced() {
        return config.allAckInSyncStateSet() && syncStateSet.effective().size() > 1;
    }

    private long dispatchLimit() {
        return enforced() ? confirmOffset : Long.MAX_VALUE;
    }

    /** Start of the master's current epoch (a slave joins only once it holds data of it). */
    long currentEpochStart() {
        List<EpochFile.Entry> entries = epochs.entries();
        return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).startOffset();
    }

    private long computeConfirmOffset() {
        Map<Long, Long> acks = memberAcks();
        long confirm = store.getMaxPhyOffset();
        for (long id : syncStateSet.effective()) {
            if (id == syncStateSet.masterId()) {
                continue;
            }
            Long ack = acks.get(id);
            if (ack == null) {
                // a member without a streaming connection: what it holds is unknown, so confirmOffset stays
                return confirmOffset;
            }
            confirm = Math.min(confirm, ack);
        }
        return confirm;
    }

    /** The offset every replica a put must wait for has acknowledged (Long.MAX_VALUE: nobody to wait for). */
    private long ackedByEnough() {
        Map<Long, Long> acks = memberAcks();
        if (config.allAckInSyncStateSet()) {
            long least = Long.MAX_VALUE;
            for (long id : syncStateSet.effective()) {
                if (id != syncStateSet.masterId()) {
                    Long ack = acks.get(id);
                    least = Math.min(least, ack == null ? -1 : ack);
                }
            }
            return least;
        }
        int slavesNeeded = config.inSyncReplicas() - 1;
        if (slavesNeeded <= 0) {
            return Long.MAX_VALUE;
        }
        List<Long> sorted = new ArrayList<>(acks.values());
        if (sorted.size() < slavesNeeded) {
            return -1;
        }
        sorted.sort(java.util.Comparator.reverseOrder());
        return sorted.get(slavesNeeded - 1);
    }

    /** Acknowledged offset by controller id of each streaming AutoSwitch slave. */
    private Map<Long, Long> memberAcks() {
        Map<Long, Long> acks = new HashMap<>();
        for (ReplicaConnection c : service.connections()) {
            if (c instanceof AutoSwitchConnection a && a.isTransferring() && a.brokerId() >= 0) {
                acks.merge(a.brokerId(), a.ackOffset(), Math::max);
            }
        }
        return acks;
    }

    /** Controller ids of the slaves streaming now. */
    Collection<Long> connectedSlaves() {
        return memberAcks().keySet();
    }

    /** The periodic SyncStateSet check (members not caught up for haMaxTimeSlaveNotCatchup leave). */
    void shrink() {
        Set<Long> proposed = syncStateSet.shrink(connectedSlaves());
        if (proposed != null) {
            onChange();
        }
    }
}
