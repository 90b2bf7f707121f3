package io.basalt.broker.protocol;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON bodies of the route family for a single-broker deployment (the broker answers as its own
 * NameServer): {@code TopicRouteData} (GET_ROUTEINFO_BY_TOPIC) and {@code ClusterInfo}
 * (GET_BROKER_CLUSTER_INFO), in the "standard JSON" form a 5.x NameServer sends (quoted numeric map
 * keys; the 5.2.0 client reads them as Long broker ids), written by {@link Json} like every other body.
 * Stateless.
 */
public final class RouteBodies {
    private RouteBodies() {
    }

    /** Where this broker is: cluster, name, id 0 (master) and its client-reachable address. */
    public record BrokerIdentity(String clusterName, String brokerName, long brokerId, String brokerAddr) {
    }

    /** One topic's queues as a route entry. */
    public record QueueRoute(int readQueueNums, int writeQueueNums, int perm, int topicSysFlag) {
    }

    public static byte[] topicRouteData(BrokerIdentity broker, QueueRoute queues) {
        return topicRouteData(broker, Map.of(broker.brokerId(), broker.brokerAddr()), queues);
    }

    /** Route data listing the whole broker group: {@code brokerAddrs} maps brokerId (0 = master) to address. */
    public static byte[] topicRouteData(BrokerIdentity broker, Map<Long, String> brokerAddrs, QueueRoute queues) {
        return topicRouteData(broker, brokerAddrs, queues, null);
    }

    /**
     * Route data with RocketMQ's {@code orderTopicConf} ({@code brokerName:queueNums;…}, from the NameServer's
     * ORDER_TOPIC_CONFIG), which makes a client publish to exactly those queues and treat the topic as ordered;
     * null leaves it out.
     */
    public static byte[] topicRouteData(BrokerIdentity broker, Map<Long, String> brokerAddrs, QueueRoute queues,
                                        String orderTopicConf) {
        Map<String, Object> queueData = JsonObject.fields();
        queueData.put("brokerName", broker.brokerName());
        queueData.put("perm", queues.perm());
        queueData.put("readQueueNums", queues.readQueueNums());
        queueData.put("topicSysFlag", queues.topicSysFlag());
        queueData.put("writeQueueNums", queues.writeQueueNums());
        Map<String, Object> root = JsonObject.fields();
        root.put("brokerDatas", List.of(brokerData(broker, brokerAddrs)));
        root.put("filterServerTable", Map.of());
        if (orderTopicConf != null) {
            root.put("orderTopicConf", orderTopicConf);
        }
        root.put("queueDatas", List.of(queueData));
        return Json.encode(root);
    }

    private static Map<String, Object> brokerData(BrokerIdentity broker, Map<Long, String> brokerAddrs) {
        // quoted keys in brokerId order: the standard form (a NameServer sorts map keys in it)
        Map<String, Object> addrs = JsonObject.ordered();
        new TreeMap<>(brokerAddrs).forEach((id, addr) -> addrs.put(Long.toString(id), addr));
        Map<String, Object> b = JsonObject.fields();
        b.put("brokerAddrs", addrs);
        b.put("brokerName", broker.brokerName());
        b.put("cluster", broker.clusterName());
        b.put("enableActingMaster", false);
        return b;
    }

    public static byte[] clusterInfo(BrokerIdentity broker) {
        return clusterInfo(broker, Map.of(broker.brokerId(), broker.brokerAddr()));
    }

    /** Cluster info listing the whole broker group (see {@link #topicRouteData(BrokerIdentity, Map, QueueRoute)}). */
    public static byte[] clusterInfo(BrokerIdentity broker, Map<Long, String> brokerAddrs) {
        Map<String, Object> root = JsonObject.fields();
        root.put("brokerAddrTable", Map.of(broker.brokerName(), brokerData(broker, brokerAddrs)));
        root.put("clusterAddrTable", Map.of(broker.clusterName(), List.of(broker.brokerName())));
        return Json.encode(root);
    }

    /** {@code {"consumerIdList":[...]}} of GET_CONSUMER_LIST_BY_GROUP. */
    public static byte[] consumerIdList(Collection<String> clientIds) {
        return Json.encode(Map.of("consumerIdList", clientIds));
    }
}
