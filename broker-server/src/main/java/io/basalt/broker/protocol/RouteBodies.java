package io.basalt.broker.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;

/**
 * JSON bodies of the route family for a single-broker deployment (the broker answers as its own
 * NameServer): {@code TopicRouteData} (GET_ROUTEINFO_BY_TOPIC) and {@code ClusterInfo}
 * (GET_BROKER_CLUSTER_INFO), in the "standard JSON" form a 5.x NameServer sends (quoted numeric map
 * keys; the 5.2.0 client reads them as Long broker ids). Stateless.
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
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode brokerDatas = root.putArray("brokerDatas");
        brokerDatas.add(brokerData(broker, brokerAddrs));
        root.putObject("filterServerTable");
        ArrayNode queueDatas = root.putArray("queueDatas");
        ObjectNode q = queueDatas.addObject();
        q.put("brokerName", broker.brokerName());
        q.put("perm", queues.perm());
        q.put("readQueueNums", queues.readQueueNums());
        q.put("topicSysFlag", queues.topicSysFlag());
        q.put("writeQueueNums", queues.writeQueueNums());
        return bytes(root);
    }

    private static ObjectNode brokerData(BrokerIdentity broker, Map<Long, String> brokerAddrs) {
        ObjectNode b = JsonNodeFactory.instance.objectNode();
        ObjectNode addrs = b.putObject("brokerAddrs");
        new TreeMap<>(brokerAddrs).forEach((id, addr) -> addrs.put(Long.toString(id), addr));
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
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.putObject("brokerAddrTable").set(broker.brokerName(), brokerData(broker, brokerAddrs));
        root.putObject("clusterAddrTable").putArray(broker.clusterName()).add(broker.brokerName());
        return bytes(root);
    }

    /** {@code {"consumerIdList":[...]}} of GET_CONSUMER_LIST_BY_GROUP. */
    public static byte[] consumerIdList(Collection<String> clientIds) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode list = root.putArray("consumerIdList");
        clientIds.forEach(list::add);
        return bytes(root);
    }

    static byte[] bytes(ObjectNode node) {
        try {
            return JsonConfigFile.MAPPER.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a JSON tree", e);
        }
    }
}
