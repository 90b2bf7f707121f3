package io.basalt.broker.grpc;

import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Assignment;
import apache.rocketmq.v2.Broker;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Permission;
import apache.rocketmq.v2.QueryAssignmentResponse;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Status;
import io.basalt.broker.config.HostPort;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * QueryRoute and QueryAssignment answered from this broker's own topic table: every queue names this broker with its
 * own reachable gRPC endpoint ({@code grpcAdvertisedAddress}, else {@code brokerIP1} and the port the endpoint
 * listens on), never a port derived from another broker's; the topic's {@code message.type} gives concrete accepted
 * message types. A topic this broker does not have is TOPIC_NOT_FOUND, naming the broker.
 */
final class RouteAnswers {
    private final String brokerName;
    private final long brokerId;
    private final Supplier<HostPort> endpoint;
    private final java.util.function.Function<String, TopicConfig> topics;
    private final IntUnaryOperator routePerm;
    private final Predicate<String> orderlyGroup;

    /**
     * @param routePerm    a topic's perm as this broker routes it (its broker permission applied)
     * @param orderlyGroup whether a subscription group consumes orderly ({@code consumeMessageOrderly})
     */
    RouteAnswers(String brokerName, long brokerId, Supplier<HostPort> endpoint,
                 java.util.function.Function<String, TopicConfig> topics, IntUnaryOperator routePerm,
                 Predicate<String> orderlyGroup) {
        this.brokerName = brokerName;
        this.brokerId = brokerId;
        this.endpoint = endpoint;
        this.topics = topics;
        this.routePerm = routePerm;
        this.orderlyGroup = orderlyGroup;
    }

    QueryRouteResponse queryRoute(Resource topic) {
        Status refused = checkTopic(topic.getName());
        if (refused != null) {
            return QueryRouteResponse.newBuilder().setStatus(refused).build();
        }
        TopicConfig config = topics.apply(topic.getName());
        List<MessageQueue> queues = messageQueues(topic, config);
        if (queues.isEmpty()) {
            return QueryRouteResponse.newBuilder().setStatus(GrpcCodes.status(Code.FORBIDDEN, "topic "
                + topic.getName() + " is neither readable nor writable on broker " + brokerName)).build();
        }
        return QueryRouteResponse.newBuilder().setStatus(GrpcCodes.OK).addAllMessageQueues(queues).build();
    }

    QueryAssignmentResponse queryAssignment(Resource topic, Resource group) {
        Status refused = checkTopic(topic.getName());
        if (refused == null) {
            String invalid = TopicValidator.invalidName("group", group.getName(), 255);
            if (invalid != null) {
                refused = GrpcCodes.status(Code.ILLEGAL_CONSUMER_GROUP, invalid);
            }
        }
        if (refused != null) {
            return QueryAssignmentResponse.newBuilder().setStatus(refused).build();
        }
        TopicConfig config = topics.apply(topic.getName());
        int perm = routePerm.applyAsInt(config.perm());
        if ((perm & Perm.READ) == 0 || config.readQueueNums() <= 0) {
            return QueryAssignmentResponse.newBuilder().setStatus(GrpcCodes.status(Code.FORBIDDEN,
                "no readable queue of topic " + topic.getName() + " on broker " + brokerName)).build();
        }
        QueryAssignmentResponse.Builder answer = QueryAssignmentResponse.newBuilder().setStatus(GrpcCodes.OK);
        if (orderlyGroup.test(group.getName())) {
            for (int id = 0; id < config.readQueueNums(); id++) {
                answer.addAssignments(Assignment.newBuilder().setMessageQueue(queue(topic, id, Permission.READ_WRITE,
                    config)));
            }
        } else {
            // one assignment for the whole broker: the broker picks the queue at each receive
            answer.addAssignments(Assignment.newBuilder().setMessageQueue(queue(topic, -1, Permission.READ_WRITE,
                config)));
        }
        return answer.build();
    }

    /** ILLEGAL_TOPIC or TOPIC_NOT_FOUND; null when the topic exists here. */
    Status checkTopic(String topic) {
        String invalid = TopicValidator.invalidReason(topic);
        if (invalid != null) {
            return GrpcCodes.status(Code.ILLEGAL_TOPIC, invalid);
        }
        if (TopicValidator.isNotAllowedSendTopic(topic)) {
            return GrpcCodes.status(Code.ILLEGAL_TOPIC, "topic " + topic + " is a system topic");
        }
        if (topics.apply(topic) == null) {
            return GrpcCodes.status(Code.TOPIC_NOT_FOUND, "topic " + topic + " does not exist on broker " + brokerName
                + " (gRPC clients do not create topics: mqadmin updateTopic -t " + topic + " -a +message.type=...)");
        }
        return null;
    }

    /** RocketMQ's queue order: read-only ids first, then write-only, then read-write. */
    List<MessageQueue> messageQueues(Resource topic, TopicConfig config) {
        int perm = routePerm.applyAsInt(config.perm());
        boolean readable = (perm & Perm.READ) != 0;
        boolean writable = (perm & Perm.WRITE) != 0;
        int readOnly = 0;
        int writeOnly = 0;
        int readWrite = 0;
        if (readable && writable) {
            readWrite = Math.min(config.readQueueNums(), config.writeQueueNums());
            readOnly = config.readQueueNums() - readWrite;
            writeOnly = config.writeQueueNums() - readWrite;
        } else if (readable) {
            readOnly = config.readQueueNums();
        } else if (writable) {
            writeOnly = config.writeQueueNums();
        }
        List<MessageQueue> queues = new ArrayList<>();
        int id = 0;
        for (int i = 0; i < readOnly; i++) {
            queues.add(queue(topic, id++, Permission.READ, config));
        }
        for (int i = 0; i < writeOnly; i++) {
            queues.add(queue(topic, id++, Permission.WRITE, config));
        }
        for (int i = 0; i < readWrite; i++) {
            queues.add(queue(topic, id++, Permission.READ_WRITE, config));
        }
        return queues;
    }

    private MessageQueue queue(Resource topic, int id, Permission permission, TopicConfig config) {
        return MessageQueue.newBuilder().setTopic(topic).setId(id).setPermission(permission)
            .setBroker(Broker.newBuilder().setName(brokerName).setId((int) brokerId).setEndpoints(endpoints()))
            .addAllAcceptMessageTypes(acceptedTypes(config)).build();
    }

    Endpoints endpoints() {
        HostPort hp = endpoint.get();
        return Endpoints.newBuilder().setScheme(scheme(hp.host()))
            .addAddresses(Address.newBuilder().setHost(hp.host()).setPort(hp.port())).build();
    }

    static List<MessageType> acceptedTypes(TopicConfig config) {
        String type = SendMessageChecks.topicMessageType(config);
        return switch (type) {
            case "MIXED" -> List.of(MessageType.NORMAL, MessageType.FIFO, MessageType.DELAY, MessageType.TRANSACTION);
            case "FIFO" -> List.of(MessageType.FIFO);
            case "DELAY" -> List.of(MessageType.DELAY);
            case "TRANSACTION" -> List.of(MessageType.TRANSACTION);
            default -> List.of(MessageType.NORMAL);
        };
    }

    static AddressScheme scheme(String host) {
        if (host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return AddressScheme.IPv4;
        }
        if (host.contains(":")) {
            return AddressScheme.IPv6;
        }
        return AddressScheme.DOMAIN_NAME;
    }
}
