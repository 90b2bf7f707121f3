package io.basalt.broker.controller;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A unit-test double of the RocketMQ Controller's decisions for one broker set, for the role manager's state
 * machine: the first broker asking is elected, a later election picks the requester, epochs increase, the
 * SyncStateSet is altered under its epoch. {@link #reachable} cuts every request off. Compatibility with the real
 * Controller is proven in broker-it against RocketMQ's own.
 */
final class InMemoryController implements ControllerApi {
    volatile boolean reachable = true;
    private final Map<Long, String> addresses = new TreeMap<>();
    private long masterId = -1;
    private int masterEpoch;
    private Set<Long> syncStateSet = new HashSet<>();
    private int syncStateSetEpoch;
    final Map<Long, BrokerHeartbeat> heartbeats = new HashMap<>();

    private void check() throws ControllerException {
        if (!reachable) {
            throw new ControllerException(ControllerException.UNREACHABLE, "cut off");
        }
    }

    @Override
    public ControllerMetadata metadata() throws ControllerException {
        check();
        return new ControllerMetadata("g", "n0", "127.0.0.1:9878", true, "n0:127.0.0.1:9878");
    }

    @Override
    public long nextBrokerId(String clusterName, String brokerName) throws ControllerException {
        check();
        return addresses.size() + 1;
    }

    @Override
    public void applyBrokerId(String clusterName, String brokerName, long brokerId, String registerCheckCode)
        throws ControllerException {
        check();
    }

    @Override
    public synchronized ReplicaInfo register(String clusterName, String brokerName, long brokerId, String brokerAddress)
        throws ControllerException {
        check();
        addresses.put(brokerId, brokerAddress);
        return info();
    }

    @Override
    public synchronized void heartbeat(BrokerHeartbeat heartbeat) {
        if (reachable) {
            heartbeats.put(heartbeat.brokerId(), heartbeat);
        }
    }

    @Override
    public synchronized ElectionResult electMaster(String clusterName, String brokerName, long brokerId)
        throws ControllerException {
        check();
        if (masterId > 0) {
            return new ElectionResult(false, info(), addresses);
        }
        elect(brokerId);
        return new ElectionResult(true, info(), addresses);
    }

    /** The Controller's own election (the master's heartbeats expired): {@code brokerId} wins. */
    synchronized ReplicaInfo elect(long brokerId) {
        masterId = brokerId;
        masterEpoch++;
        syncStateSetEpoch++;
        syncStateSet = new HashSet<>(Set.of(brokerId));
        return info();
    }

    @Override
    public synchronized ReplicaInfo replicaInfo(String brokerName) throws ControllerException {
        check();
        return info();
    }

    @Override
    public synchronized SyncStateSet alterSyncStateSet(String brokerName, long masterBrokerId, int epoch,
                                                       SyncStateSet proposal) throws ControllerException {
        check();
        if (masterBrokerId != masterId) {
            throw new ControllerException(ControllerResponseCode.INVALID_MASTER, "not the master");
        }
        if (epoch != masterEpoch) {
            throw new ControllerException(ControllerResponseCode.FENCED_MASTER_EPOCH, "old epoch");
        }
        if (proposal.epoch() != syncStateSetEpoch) {
            throw new ControllerException(ControllerResponseCode.FENCED_SYNC_STATE_SET_EPOCH, "old set epoch");
        }
        syncStateSet = new HashSet<>(proposal.brokerIds());
        syncStateSetEpoch++;
        return new SyncStateSet(syncStateSet, syncStateSetEpoch);
    }

    synchronized Set<Long> syncStateSet() {
        return Set.copyOf(syncStateSet);
    }

    private ReplicaInfo info() {
        return new ReplicaInfo(masterId, masterId > 0 ? addresses.get(masterId) : "", masterEpoch,
            new SyncStateSet(syncStateSet, syncStateSetEpoch));
    }

    @Override
    public void close() {
    }
}
