package io.basalt.broker.controller;

import java.util.Map;
import java.util.Set;

/**
 * The requests a broker sends to the RocketMQ Controller, as RocketMQ 5.2.0's broker sends them
 * (remoting, JSON headers, 3 s timeouts). Write requests go to the Controller's Raft leader; an
 * implementation finds it ({@code CONTROLLER_GET_METADATA_INFO}) and follows a change of leader.
 *
 * <p>Every call blocks until the Controller answered or the call timed out. A Controller answer other
 * than SUCCESS is a {@link ControllerException} carrying the Controller's response code
 * ({@link ControllerResponseCode}) and remark; an unreachable Controller is one with code
 * {@link ControllerException#UNREACHABLE}. Thread-safe.
 */
public interface ControllerApi extends AutoCloseable {

    /** 1005 CONTROLLER_GET_METADATA_INFO: who the Controller's leader is. */
    ControllerMetadata metadata() throws ControllerException;

    /** 1012 CONTROLLER_GET_NEXT_BROKER_ID: 1 for a new broker set, else its largest id + 1. */
    long nextBrokerId(String clusterName, String brokerName) throws ControllerException;

    /**
     * 1013 CONTROLLER_APPLY_BROKER_ID with {@code registerCheckCode} = {@code brokerAddr;epochMillis};
     * CONTROLLER_BROKER_ID_INVALID (2014) when the id is taken by another check code.
     */
    void applyBrokerId(String clusterName, String brokerName, long brokerId, String registerCheckCode)
        throws ControllerException;

    /** 1003 CONTROLLER_REGISTER_BROKER: records this replica's address; names the live master if there is one. */
    ReplicaInfo register(String clusterName, String brokerName, long brokerId, String brokerAddress)
        throws ControllerException;

    /** 904 BROKER_HEARTBEAT, oneway, to every reachable Controller node (not only the leader). */
    void heartbeat(BrokerHeartbeat heartbeat);

    /**
     * 1002 CONTROLLER_ELECT_MASTER for {@code brokerId} ({@code designateElect=false}: a broker asking
     * for a master). SUCCESS and CONTROLLER_MASTER_STILL_EXIST (2011) both return the master.
     */
    ElectionResult electMaster(String clusterName, String brokerName, long brokerId) throws ControllerException;

    /** 1004 CONTROLLER_GET_REPLICA_INFO; CONTROLLER_BROKER_METADATA_NOT_EXIST (2008) for an unknown set. */
    ReplicaInfo replicaInfo(String brokerName) throws ControllerException;

    /**
     * 1001 CONTROLLER_ALTER_SYNC_STATE_SET, sent by the master: {@code proposal} carries the new members
     * and the <em>current</em> SyncStateSet epoch; the answer is the set the Controller adopted, with its
     * new epoch.
     */
    SyncStateSet alterSyncStateSet(String brokerName, long masterBrokerId, int masterEpoch, SyncStateSet proposal)
        throws ControllerException;

    @Override
    void close();

    /** A SyncStateSet: the controller ids of the replicas in sync with the master, and its epoch. */
    record SyncStateSet(Set<Long> brokerIds, int epoch) {
        public SyncStateSet {
            brokerIds = Set.copyOf(brokerIds);
        }
    }

    /**
     * Response of 1005.
     *
     * @param leaderAddress the leader's {@code host:port}; empty while the Controller has no leader
     */
    record ControllerMetadata(String group, String leaderId, String leaderAddress, boolean isLeader, String peers) {
    }

    /**
     * What the Controller knows of a broker set (responses of 1003 and 1004, and the 1008 push).
     *
     * @param masterBrokerId  the master's controller id; 0 or less when the set has no live master
     * @param masterAddress   the master's remoting address; empty when none
     * @param syncStateSet    the SyncStateSet and its epoch
     */
    record ReplicaInfo(long masterBrokerId, String masterAddress, int masterEpoch, SyncStateSet syncStateSet) {
        public boolean hasMaster() {
            return masterBrokerId > 0 && masterAddress != null && !masterAddress.isEmpty();
        }
    }

    /**
     * Response of 1002: the master (new or still existing) and the broker set's members.
     *
     * @param elected      true for SUCCESS (a new master), false for CONTROLLER_MASTER_STILL_EXIST
     * @param brokerAddrs  controller id → remoting address of every registered replica
     */
    record ElectionResult(boolean elected, ReplicaInfo master, Map<Long, String> brokerAddrs) {
        public ElectionResult {
            brokerAddrs = Map.copyOf(brokerAddrs);
        }
    }

    /**
     * The fields of 904 BROKER_HEARTBEAT.
     *
     * @param epoch the last epoch of the broker's epoch file, -1 if none
     */
    record BrokerHeartbeat(String clusterName, String brokerAddr, String brokerName, long brokerId, int epoch,
                           long maxOffset, long confirmOffset, long heartbeatTimeoutMillis, int electionPriority) {
    }
}
