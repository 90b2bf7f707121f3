package io.basalt.it.controller;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * One broker set {@code broker-a} of Basalt brokers in controller mode ({@code enableControllerMode=true},
 * {@code brokerId=-1}, {@code brokerRole=SLAVE}: the Controller assigns both), {@code SYNC_FLUSH} and
 * {@code allAckInSyncStateSet=true}, with short heartbeat and poll periods, and the official admin client's view of
 * it: the Controller's master and SyncStateSet (CONTROLLER_GET_SYNC_STATE_DATA, as {@code mqadmin getSyncStateSet})
 * and the NameServer's registrations. Each broker's {@code controllerAddr} is given per broker, so a test can route
 * one broker's Controller traffic through a proxy.
 */
public final class BrokerSet implements AutoCloseable {
    public static final String BROKER_NAME = "broker-a";
    /** Controller keys for the tests: heartbeats expire after 3 s, found by 500 ms scans. */
    public static final Map<String, String> CONTROLLER_CONF = RocketMqControllerProcess.FAST;

    /** The Controller's view of the set. */
    public record Replicas(String master, int masterEpoch, int syncStateSetEpoch, Set<String> inSync,
        Set<String> aliveInSync) {
        public boolean hasMaster() {
            return master != null && !master.isEmpty();
        }
    }

    private final List<BrokerProcess> brokers = new ArrayList<>();
    private final DefaultMQAdminExt admin;
    private final RocketMqControllerProcess controller;

    public BrokerSet(String namesrv, RocketMqControllerProcess controller) throws Exception {
        this.controller = controller;
        admin = new DefaultMQAdminExt(5_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
    }

    /** The broker.conf keys of controller mode as the tests use them; {@code controllerAddr} as given. */
    public static Map<String, String> conf(String controllerAddr, String namesrv) {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("enableControllerMode", "true");
        conf.put("controllerAddr", controllerAddr);
        conf.put("namesrvAddr", namesrv);
        conf.put("brokerId", "-1");
        conf.put("brokerRole", "SLAVE");
        conf.put("allAckInSyncStateSet", "true");
        conf.put("flushDiskType", "SYNC_FLUSH");
        conf.put("controllerHeartBeatTimeoutMills", "3000");
        conf.put("brokerHeartbeatInterval", "300");
        conf.put("syncBrokerMetadataPeriod", "500");
        conf.put("checkSyncStateSetPeriod", "500");
        conf.put("registerNameServerPeriod", "10000");
        return conf;
    }

    /** Configures a broker in {@code dir} (not started) with {@link #conf} and {@code extra} on top. */
    public BrokerProcess add(Path dir, String controllerAddr, String namesrv, Map<String, String> extra)
        throws Exception {
        Map<String, String> conf = conf(controllerAddr, namesrv);
        conf.putAll(extra);
        BrokerProcess b = BrokerProcess.create(dir, conf);
        brokers.add(b);
        return b;
    }

    List<BrokerProcess> brokers() {
        return List.copyOf(brokers);
    }

    BrokerProcess at(String address) {
        return brokers.stream().filter(b -> b.address().equals(address)).findFirst()
            .orElseThrow(() -> new IllegalStateException("no broker of the set listens on " + address));
    }

    DefaultMQAdminExt admin() {
        return admin;
    }

    /** The Controller's view of the set, asking each running node; null when none answers. */
    public Replicas replicas() {
        for (int i = 0; i < controller.size(); i++) {
            if (!controller.isAlive(i)) {
                continue;
            }
            try {
                BrokerReplicasInfo.ReplicasInfo set = admin.getInSyncStateData(controller.address(i), List.of(BROKER_NAME))
                    .getReplicasInfoTable().get(BROKER_NAME);
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
                return new Replicas(set.getMasterAddress(), set.getMasterEpoch(), set.getSyncStateSetEpoch(), inSync, alive);
            } catch (Exception | AssertionError tryNext) {
                // a node without a leader, or cut off; the 5.2.0 client asserts a non-null response, which a
                // connection the partition proxy closes under the request does not give (tests run with -ea)
            }
        }
        return null;
    }

    /** The NameServer's brokerId to address map of the set. */
    public Map<Long, String> registered() {
        try {
            BrokerData data = admin.examineBrokerClusterInfo().getBrokerAddrTable().get(BROKER_NAME);
            return data == null ? Map.of() : Map.copyOf(data.getBrokerAddrs());
        } catch (Exception e) {
            return Map.of();
        }
    }

    /**
     * Waits until the Controller names a master whose SyncStateSet holds {@code inSync} live replicas and the
     * NameServer has that master as brokerId 0.
     */
    public Replicas awaitSet(int inSync, Duration atMost) {
        Replicas[] last = new Replicas[1];
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).alias("a master with " + inSync
            + " live replicas in its SyncStateSet").until(() -> {
                Replicas r = replicas();
                last[0] = r;
                return r != null && r.hasMaster() && r.aliveInSync().size() >= inSync
                    && r.master().equals(registered().get(0L));
            });
        return last[0];
    }

    void createTopic(String master, String topic, int queues) throws Exception {
        admin.createAndUpdateTopicConfig(master, new TopicConfig(topic, queues, queues, 6));
    }

    @Override
    public void close() throws Exception {
        try {
            for (BrokerProcess b : brokers) {
                b.close();
            }
        } finally {
            admin.shutdown();
        }
    }
}
