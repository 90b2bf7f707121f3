package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.basalt.broker.assignment.LocalTopicQueues;
import io.basalt.broker.assignment.MessageRequestMode;
import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.protocol.MessageRequestModeBody;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageQueueAssignment;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.QueryAssignmentRequestBody;
import org.apache.rocketmq.remoting.protocol.body.QueryAssignmentResponseBody;
import org.apache.rocketmq.remoting.protocol.body.SetMessageRequestModeRequestBody;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SET_MESSAGE_REQUEST_MODE and QUERY_ASSIGNMENT with the bodies RocketMQ 5.2.0's classes write and read. */
class QueryAssignmentProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private TopicConfigManager topics;
    private SubscriptionGroupManager groups;
    private ClientManager clients;
    private MessageRequestModes modes;
    private final AtomicBoolean slave = new AtomicBoolean();

    @BeforeEach
    void open() throws Exception {
        topics = TopicConfigManager.open(dir, true, 8);
        topics.createIfAbsent("T", 4, Perm.READ | Perm.WRITE);
        topics.createIfAbsent("%RETRY%cg", 1, Perm.READ | Perm.WRITE);
        groups = SubscriptionGroupManager.open(dir, true);
        clients = new ClientManager(120_000, System::currentTimeMillis);
        modes = MessageRequestModes.open(dir);
    }

    private QueryAssignmentProcessor processor(MessageRequestMode defaultMode, int defaultShare) {
        return new QueryAssignmentProcessor(modes, new LocalTopicQueues("broker-a", topics), clients, topics, groups,
            new QueryAssignmentProcessor.Defaults(defaultMode, defaultShare), slave::get);
    }

    private RemotingCommand call(QueryAssignmentProcessor processor, int code, RemotingSerializable body) throws Exception {
        RemotingCommand request = RemotingCommand.request(code);
        request.setBody(body.encode());
        return processor.processRequest(CONTEXT, request).get();
    }

    private static SetMessageRequestModeRequestBody setMode(String topic, String group,
                                                          org.apache.rocketmq.common.message.MessageRequestMode mode, int share) {
        SetMessageRequestModeRequestBody body = new SetMessageRequestModeRequestBody();
        body.setTopic(topic);
        body.setConsumerGroup(group);
        body.setMode(mode);
        body.setPopShareQueueNum(share);
        return body;
    }

    private static QueryAssignmentRequestBody query(String topic, String clientId, String strategy, MessageModel model) {
        QueryAssignmentRequestBody body = new QueryAssignmentRequestBody();
        body.setTopic(topic);
        body.setConsumerGroup("cg");
        body.setClientId(clientId);
        body.setStrategyName(strategy);
        body.setMessageModel(model);
        return body;
    }

    private void register(String... clientIds) {
        for (String id : clientIds) {
            clients.registerConsumer("cg", new ConsumerGroupInfo.Member(id, "127.0.0.1:1", "CONSUME_PASSIVELY",
                "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(), null, "JAVA", 453), List.of());
        }
    }

    private static Set<MessageQueueAssignment> assignments(RemotingCommand response) {
        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        return RemotingSerializable.decode(response.body(), QueryAssignmentResponseBody.class).getMessageQueueAssignments();
    }

    private static Set<Integer> queueIds(Set<MessageQueueAssignment> assignments) {
        return assignments.stream().map(a -> a.getMessageQueue().getQueueId()).collect(Collectors.toSet());
    }

    @Test
    void aPopGroupGetsOneWholeBrokerQueueAndAPullGroupItsAverageShare() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.PULL, -1);
        register("c1", "c2");
        Set<MessageQueueAssignment> pull = assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c2", "AVG", MessageModel.CLUSTERING)));
        assertEquals(Set.of(2, 3), queueIds(pull));
        assertTrue(pull.stream().allMatch(a -> a.getMode() == org.apache.rocketmq.common.message.MessageRequestMode.PULL));

        assertEquals(ResponseCode.SUCCESS, call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("T", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 0)).code());
        Set<MessageQueueAssignment> pop = assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c2", "AVG", MessageModel.CLUSTERING)));
        assertEquals(1, pop.size());
        MessageQueueAssignment only = pop.iterator().next();
        assertEquals(new MessageQueue("T", "broker-a", -1), only.getMessageQueue());
        assertEquals(org.apache.rocketmq.common.message.MessageRequestMode.POP, only.getMode());
    }

    @Test
    void avgByCircleAndPopSharesFollowTheRecordedShareCount() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.PULL, -1);
        register("c1", "c2", "c3", "c4");
        assertEquals(Set.of(1), queueIds(assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c2", "AVG_BY_CIRCLE", MessageModel.CLUSTERING)))));
        call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("T", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 1));
        assertEquals(Set.of(1, 2), queueIds(assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c2", "AVG", MessageModel.CLUSTERING)))));
    }

    @Test
    void theRetryTopicIsPullAndOtherTopicsFollowTheConfiguredDefault() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.POP, -1);
        register("c1");
        Set<MessageQueueAssignment> normal = assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c1", "AVG", MessageModel.CLUSTERING)));
        assertEquals(Set.of(-1), queueIds(normal));
        Set<MessageQueueAssignment> retry = assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("%RETRY%cg", "c1", "AVG", MessageModel.CLUSTERING)));
        assertEquals(Set.of(0), queueIds(retry));
        assertEquals(org.apache.rocketmq.common.message.MessageRequestMode.PULL, retry.iterator().next().getMode());
    }

    @Test
    void broadcastingGivesEveryQueueToEveryClient() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.PULL, -1);
        register("c1", "c2");
        assertEquals(Set.of(0, 1, 2, 3), queueIds(assignments(call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("T", "c1", "CONSISTENT_HASH", MessageModel.BROADCASTING)))));
    }

    @Test
    void anUnsupportedStrategyIsRefusedNamingTheSupportedOnes() throws Exception {
        register("c1");
        RemotingCommand response = call(processor(MessageRequestMode.PULL, -1), RequestCode.QUERY_ASSIGNMENT,
            query("T", "c1", "CONSISTENT_HASH", MessageModel.CLUSTERING));
        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertTrue(response.remark().contains("CONSISTENT_HASH") && response.remark().contains("AVG, AVG_BY_CIRCLE"),
            response.remark());
    }

    @Test
    void noRegisteredConsumerOrNoRouteIsRocketMqsEmptyAnswerWithTheReason() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.PULL, -1);
        RemotingCommand noClient = call(processor, RequestCode.QUERY_ASSIGNMENT, query("T", "c1", "AVG", MessageModel.CLUSTERING));
        assertNull(assignments(noClient), "null: the client keeps its queues and asks again");
        assertTrue(noClient.remark().contains("no consumer of group cg"), noClient.remark());
        register("c1");
        RemotingCommand noTopic = call(processor, RequestCode.QUERY_ASSIGNMENT,
            query("Missing", "c1", "AVG", MessageModel.CLUSTERING));
        assertNull(assignments(noTopic));
        assertTrue(noTopic.remark().contains("Missing"), noTopic.remark());
    }

    @Test
    void setModeRefusesRetryTopicsUnknownTopicsAndGroupsAndSlaves() throws Exception {
        QueryAssignmentProcessor processor = processor(MessageRequestMode.PULL, -1);
        RemotingCommand retry = call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("%RETRY%cg", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 0));
        assertEquals(ResponseCode.NO_PERMISSION, retry.code());
        assertEquals("retry topic is not allowed to set mode", retry.remark());

        RemotingCommand noTopic = call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("Missing", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 0));
        assertEquals(ResponseCode.TOPIC_NOT_EXIST, noTopic.code());
        assertEquals("topic[Missing] not exist", noTopic.remark());

        groups.setAutoCreateSubscriptionGroup(false);
        RemotingCommand noGroup = call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("T", "unknown-cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 0));
        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, noGroup.code());
        assertTrue(noGroup.remark().contains("unknown-cg"), noGroup.remark());

        slave.set(true);
        RemotingCommand onSlave = call(processor, RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("T", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 0));
        assertEquals(ResponseCode.SYSTEM_ERROR, onSlave.code());
        assertTrue(onSlave.remark().contains("slave"), onSlave.remark());
        assertEquals(Optional.empty(), modes.get("T", "cg"), "nothing refused was recorded");
    }

    @Test
    void anUnknownModeIsRefusedNamingTheKnownOnes() throws Exception {
        RemotingCommand request = RemotingCommand.request(RequestCode.SET_MESSAGE_REQUEST_MODE);
        request.setBody(new MessageRequestModeBody("T", "cg", "PUSH", 0).encode());
        RemotingCommand response = processor(MessageRequestMode.PULL, -1).processRequest(CONTEXT, request).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertTrue(response.remark().contains("PULL or POP"), response.remark());
        assertEquals(Optional.empty(), modes.get("T", "cg"));
    }

    @Test
    void aRecordedModeSurvivesAReopen() throws Exception {
        call(processor(MessageRequestMode.PULL, -1), RequestCode.SET_MESSAGE_REQUEST_MODE,
            setMode("T", "cg", org.apache.rocketmq.common.message.MessageRequestMode.POP, 3));
        assertEquals(Optional.of(new MessageRequestModeBody("T", "cg", "POP", 3)),
            MessageRequestModes.open(dir).get("T", "cg"));
    }
}
