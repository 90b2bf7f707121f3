package io.basalt.broker.namesrv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.junit.jupiter.api.Test;

class NameServerMasterCheckTest {
    /** A ClusterInfo body exactly as RocketMQ 5.2.0's NameServer encodes it (fastjson, unquoted id keys). */
    private static byte[] clusterInfo(Map<Long, String> brokerAddrs) {
        ClusterInfo info = new ClusterInfo();
        HashMap<String, BrokerData> table = new HashMap<>();
        table.put("broker-a", new BrokerData("DefaultCluster", "broker-a", new HashMap<>(brokerAddrs)));
        info.setBrokerAddrTable(table);
        HashMap<String, Set<String>> clusters = new HashMap<>();
        clusters.put("DefaultCluster", Set.of("broker-a"));
        info.setClusterAddrTable(clusters);
        return info.encode();
    }

    @Test
    void theMasterIsBrokerIdZeroOfTheBrokerName() {
        byte[] body = clusterInfo(Map.of(0L, "10.0.0.2:10911", 1L, "10.0.0.3:10911"));
        assertEquals(Optional.of("10.0.0.2:10911"), NameServerMasterCheck.masterOf(body, "broker-a"));
        assertEquals(Optional.empty(), NameServerMasterCheck.masterOf(body, "broker-b"), "another broker name");
    }

    @Test
    void aGroupWithoutAMasterOrNoBodyNamesNone() {
        assertEquals(Optional.empty(), NameServerMasterCheck.masterOf(clusterInfo(Map.of(1L, "10.0.0.3:10911")), "broker-a"));
        assertEquals(Optional.empty(), NameServerMasterCheck.masterOf(new byte[0], "broker-a"));
    }
}
