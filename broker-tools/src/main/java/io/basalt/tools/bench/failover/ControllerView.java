package io.basalt.tools.bench.failover;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * What the Controller and the NameServer say about the broker set, through the official admin client
 * ({@code mqadmin getSyncStateSet}'s request, CONTROLLER_GET_SYNC_STATE_DATA, asked of each node until one
 * answers; the client forwards it to the leader).
 */
final class ControllerView implements AutoCloseable {
    /** The set's master and SyncStateSet as the Controller holds them. */
    record Replicas(String masterAddress, int masterEpoch, Set<String> inSync, Set<String> aliveInSync) {
        boolean hasMaster() {
            return masterAddress != null && !masterAddress.isEmpty();
        }
    }

    private final DefaultMQAdminExt admin;
    private final List<String> controllers;

    ControllerView(String namesrv, List<String> controllers) throws MQClientException {
        this.controllers = List.copyOf(controllers);
        admin = new DefaultMQAdminExt(5_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName("failoverbench-admin-" + ProcessHandle.current().pid());
        admin.start();
    }

    /** The Controller's view of {@code broker-a}, or null while no node answers (or the set is not known yet). */
    Replicas replicas() {
        for (String controller : controllers) {
            try {
                BrokerReplicasInfo info = admin.getInSyncStateData(controller, List.of(Deployment.BROKER_NAME));
                BrokerReplicasInfo.ReplicasInfo set = info.getReplicasInfoTable().get(Deployment.BROKER_NAME);
                if (set == null) {
                    return null;
                }
                Set<String> inSync = new TreeSet<>();
                Set<String> alive = new TreeSet<>();
                for (BrokerReplicasInfo.ReplicaIdentity r : set.getInSyncReplicas()) {
                    inSync.add(r.getBrokerAddress());
                    if (Boolean.TRUE.equals(r.getAlive())) {
                        alive.add(r.getBrokerAddress());
                    }
                }
                return new Replicas(set.getMasterAddress(), set.getMasterEpoch(), inSync, alive);
            } catch (Exception tryNext) {
                // a dead node or one without a leader yet
            }
        }
        return null;
    }

    /** The NameServer's brokerId → address of {@code broker-a}; empty while nothing is registered. */
    Map<Long, String> registered() {
        try {
            BrokerData data = admin.examineBrokerClusterInfo().getBrokerAddrTable().get(Deployment.BROKER_NAME);
            return data == null ? Map.of() : Map.copyOf(data.getBrokerAddrs());
        } catch (Exception e) {
            return Map.of();
        }
    }

    /** Creates {@code topic} on the master; the replicas copy it from there (slave metadata sync). */
    void createTopic(String master, String topic, int queues) throws Exception {
        admin.createAndUpdateTopicConfig(master, new TopicConfig(topic, queues, queues, 6));
    }

    /** Whether the NameServer routes {@code topic} to {@code master} as brokerId 0. */
    boolean routes(String topic, String master) {
        try {
            TopicRouteData route = admin.examineTopicRouteInfo(topic);
            return route != null && !route.getQueueDatas().isEmpty() && route.getBrokerDatas().stream()
                .anyMatch(b -> master.equals(b.getBrokerAddrs().get(0L)));
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Waits until the Controller names a master whose SyncStateSet holds {@code inSync} live replicas and the
     * NameServer routes brokerId 0 to that master; returns that view, or throws after {@code seconds}.
     */
    Replicas awaitSet(int inSync, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Replicas last = null;
        while (System.nanoTime() < deadline) {
            last = replicas();
            if (last != null && last.hasMaster() && last.aliveInSync().size() >= inSync
                && last.masterAddress().equals(registered().get(0L))) {
                return last;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("no master with " + inSync + " live replicas in its SyncStateSet within "
            + seconds + " s; the Controller says " + last + ", the NameServer " + registered());
    }

    /** The write queues of {@code topic} as the NameServer routes it now, or -1. */
    int writeQueues(String topic) {
        try {
            return admin.examineTopicRouteInfo(topic).getQueueDatas().stream().mapToInt(q -> q.getWriteQueueNums()).sum();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Messages stored in {@code topic} on {@code broker}: the sum of its queues' max offsets. */
    long stored(String broker, String topic) throws Exception {
        return admin.examineTopicStats(broker, topic).getOffsetTable().values().stream()
            .mapToLong(org.apache.rocketmq.remoting.protocol.admin.TopicOffset::getMaxOffset).sum();
    }

    @Override
    public void close() {
        admin.shutdown();
    }
}
