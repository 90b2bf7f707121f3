package io.basalt.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.basalt.broker.controller.ControllerApi.BrokerHeartbeat;
import io.basalt.broker.controller.ControllerApi.ElectionResult;
import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import io.basalt.broker.controller.ControllerApi.SyncStateSet;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** RocketMQ 5.2.0's Controller headers and bodies, against the strings its classes write. */
class ControllerCodecTest {
    private static Map<String, String> fields(ControllerCodec.Fields header) {
        Map<String, String> out = new LinkedHashMap<>();
        header.encode(out::put);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void heartbeatHeaderHasRocketMqFieldNames() {
        assertEquals("{clusterName=DefaultCluster, brokerAddr=10.0.0.1:30911, brokerName=broker-a, brokerId=1, epoch=2, "
                + "maxOffset=123456, confirmOffset=123000, heartbeatTimeoutMills=10000, electionPriority=2147483647}",
            fields(ControllerCodec.heartbeatRequest(new BrokerHeartbeat("DefaultCluster", "10.0.0.1:30911", "broker-a", 1,
                2, 123456, 123000, 10000, Integer.MAX_VALUE))).toString());
    }

    @Test
    void requestHeadersHaveRocketMqFieldNames() {
        assertEquals("{clusterName=DefaultCluster, brokerName=broker-a, brokerId=1, designateElect=false, invokeTime=7}",
            fields(ControllerCodec.electMasterRequest("DefaultCluster", "broker-a", 1, 7)).toString());
        assertEquals("{clusterName=DefaultCluster, brokerName=broker-a, appliedBrokerId=2, "
                + "registerCheckCode=10.0.0.1:30911;1700000000000}",
            fields(ControllerCodec.applyBrokerIdRequest("DefaultCluster", "broker-a", 2, "10.0.0.1:30911;1700000000000"))
                .toString());
        assertEquals("{clusterName=DefaultCluster, brokerName=broker-a, brokerId=1, brokerAddress=10.0.0.1:30911, "
            + "invokeTime=7}", fields(ControllerCodec.registerRequest("DefaultCluster", "broker-a", 1, "10.0.0.1:30911", 7))
            .toString());
        assertEquals("{brokerName=broker-a, masterBrokerId=1, masterEpoch=2, invokeTime=7}",
            fields(ControllerCodec.alterSyncStateSetRequest("broker-a", 1, 2, 7)).toString());
        assertEquals("{clusterName=DefaultCluster, brokerName=broker-a}",
            fields(ControllerCodec.nextBrokerIdRequest("DefaultCluster", "broker-a")).toString());
        assertEquals("{brokerName=broker-a}", fields(ControllerCodec.replicaInfoRequest("broker-a")).toString());
    }

    @Test
    void syncStateSetBodyIsWhatFastjsonWrites() {
        assertEquals("{\"syncStateSet\":[1,2,10],\"syncStateSetEpoch\":3}", new String(
            ControllerCodec.syncStateSetBody(new SyncStateSet(Set.of(10L, 2L, 1L), 3)), StandardCharsets.UTF_8));
    }

    @Test
    void roleChangeNotificationDecodes() throws Exception {
        ReplicaInfo info = ControllerCodec.replicaInfo(Map.of("masterAddress", "10.0.0.1:30911", "masterBrokerId", "1",
            "syncStateSetEpoch", "4", "masterEpoch", "3"), utf8("{\"syncStateSet\":[1,2],\"syncStateSetEpoch\":4}"));
        assertEquals(new ReplicaInfo(1, "10.0.0.1:30911", 3, new SyncStateSet(Set.of(1L, 2L), 4)), info);
    }

    @Test
    void replicaInfoWithoutMasterHasNone() throws Exception {
        ReplicaInfo info = ControllerCodec.replicaInfo(Map.of(), utf8("{\"syncStateSet\":[1],\"syncStateSetEpoch\":2}"));
        assertEquals(new ReplicaInfo(-1, "", 0, new SyncStateSet(Set.of(1L), 2)), info);
        assertEquals(false, info.hasMaster());
    }

    @Test
    void electMasterBodyWithFastjsonIntegerKeysParses() throws Exception {
        ElectionResult result = ControllerCodec.electionResult(true, Map.of("masterBrokerId", "1",
                "masterAddress", "10.0.0.1:30911", "masterEpoch", "1", "syncStateSetEpoch", "1"),
            utf8("{\"brokerMemberGroup\":{\"brokerAddrs\":{1:\"10.0.0.1:30911\",2:\"10.0.0.2:30911\"},"
                + "\"brokerName\":\"broker-a\",\"cluster\":\"DefaultCluster\"},\"syncStateSet\":[1]}"));
        assertEquals(Map.of(1L, "10.0.0.1:30911", 2L, "10.0.0.2:30911"), result.brokerAddrs());
        assertEquals(new ReplicaInfo(1, "10.0.0.1:30911", 1, new SyncStateSet(Set.of(1L), 1)), result.master());
    }

    @Test
    void malformedBodyIsRefusedNotReadAsEmpty() {
        assertThrows(ControllerException.class, () -> ControllerCodec.replicaInfo(Map.of(), utf8("{\"syncStateSet\":")));
        assertThrows(ControllerException.class, () -> ControllerCodec.replicaInfo(Map.of("masterEpoch", "x"), null));
    }

    @Test
    void controllerAddrSplitsOnSemicolons() {
        assertEquals(List.of("127.0.0.1:9878", "127.0.0.2:9868"),
            RemotingControllerClient.parseControllerAddr(" 127.0.0.1:9878;127.0.0.2:9868;;127.0.0.1:9878 "));
        assertThrows(IllegalArgumentException.class, () -> RemotingControllerClient.parseControllerAddr(""));
        assertThrows(IllegalArgumentException.class, () -> RemotingControllerClient.parseControllerAddr("host"));
        assertThrows(IllegalArgumentException.class, () -> RemotingControllerClient.parseControllerAddr("host:99999"));
    }
}
