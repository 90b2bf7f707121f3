package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Permission;
import apache.rocketmq.v2.Resource;
import io.basalt.broker.config.HostPort;
import io.basalt.broker.topic.TopicConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteAnswersTest {
    static final Map<String, TopicConfig> TOPICS = Map.of(
        "T", new TopicConfig("T", 6, 4, 6, "SINGLE_TAG", 0, false, Map.of()),
        "X", new TopicConfig("X", 2, 2, 6, "SINGLE_TAG", 0, false, Map.of("message.type", "MIXED")),
        "W", new TopicConfig("W", 2, 2, 2, "SINGLE_TAG", 0, false, Map.of()));

    static RouteAnswers answers(boolean orderly) {
        return new RouteAnswers("broker-a", 0, () -> new HostPort("10.1.2.3", 18081), TOPICS::get, perm -> perm,
            group -> orderly);
    }

    static Resource topic(String name) {
        return Resource.newBuilder().setName(name).build();
    }

    @Test
    void queuesAreNumberedReadOnlyFirstAndNameThisBrokersOwnEndpoint() {
        List<MessageQueue> queues = answers(false).queryRoute(topic("T")).getMessageQueuesList();
        assertEquals(List.of(Permission.READ, Permission.READ, Permission.READ_WRITE, Permission.READ_WRITE,
            Permission.READ_WRITE, Permission.READ_WRITE), queues.stream().map(MessageQueue::getPermission).toList());
        assertEquals(List.of(0, 1, 2, 3, 4, 5), queues.stream().map(MessageQueue::getId).toList());
        MessageQueue q = queues.get(0);
        assertEquals(List.of(MessageType.NORMAL), q.getAcceptMessageTypesList());
        assertEquals("broker-a", q.getBroker().getName());
        assertEquals(AddressScheme.IPv4, q.getBroker().getEndpoints().getScheme());
        assertEquals("10.1.2.3", q.getBroker().getEndpoints().getAddresses(0).getHost());
        assertEquals(18081, q.getBroker().getEndpoints().getAddresses(0).getPort());
        assertEquals(4, answers(false).queryRoute(topic("X")).getMessageQueues(0).getAcceptMessageTypesCount());
        assertEquals(List.of(Permission.WRITE, Permission.WRITE), answers(false).queryRoute(topic("W"))
            .getMessageQueuesList().stream().map(MessageQueue::getPermission).toList());
    }

    @Test
    void unknownOrIllegalTopicsAreRefused() {
        assertEquals(Code.TOPIC_NOT_FOUND, answers(false).queryRoute(topic("Nope")).getStatus().getCode());
        assertEquals(Code.ILLEGAL_TOPIC, answers(false).queryRoute(topic("no way")).getStatus().getCode());
    }

    @Test
    void assignmentsAreTheBrokerOrEveryQueueForAnOrderlyGroup() {
        var whole = answers(false).queryAssignment(topic("T"), topic("g"));
        assertEquals(List.of(-1), whole.getAssignmentsList().stream().map(a -> a.getMessageQueue().getId()).toList());
        var orderly = answers(true).queryAssignment(topic("T"), topic("g"));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), orderly.getAssignmentsList().stream()
            .map(a -> a.getMessageQueue().getId()).toList());
        assertEquals(Code.FORBIDDEN, answers(false).queryAssignment(topic("W"), topic("g")).getStatus().getCode());
    }

    @Test
    void addressSchemes() {
        assertEquals(AddressScheme.IPv4, RouteAnswers.scheme("127.0.0.1"));
        assertEquals(AddressScheme.IPv6, RouteAnswers.scheme("::1"));
        assertEquals(AddressScheme.DOMAIN_NAME, RouteAnswers.scheme("broker-a.example"));
    }
}
