package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.basalt.broker.assignment.MessageRequestMode;
import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.assignment.QueueAllocation;
import io.basalt.broker.assignment.TopicQueues;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.MessageRequestModeBody;
import io.basalt.broker.protocol.QueryAssignmentBody;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * SET_MESSAGE_REQUEST_MODE ({@code mqadmin setConsumeMode}) and QUERY_ASSIGNMENT (the broker-side rebalance of a
 * push consumer with {@code clientRebalance=false}), RocketMQ's {@code QueryAssignmentProcessor}.
 *
 * <p>SET records a (topic, group)'s mode in {@link MessageRequestModes}: a {@code %RETRY%} topic is refused
 * (NO_PERMISSION, as RocketMQ), an unknown topic is TOPIC_NOT_EXIST, a group that does not exist and may not be
 * auto-created SUBSCRIPTION_GROUP_NOT_EXIST, a mode other than PULL/POP an error naming both. A slave refuses it:
 * its table is its master's copy and the next sync would undo the change.
 *
 * <p>QUERY_ASSIGNMENT answers the client's queues with the mode of the (topic, group) — without an entry PULL for a
 * retry topic, else {@code defaultMessageRequestMode} with {@code defaultPopShareQueueNum}. BROADCASTING: every
 * readable queue. CLUSTERING: {@link QueueAllocation} over the sorted queues of the topic's route and the sorted
 * client ids of the group's registered consumers; a strategy other than AVG / AVG_BY_CIRCLE is refused naming
 * them (the client then rebalances itself). A topic without route or a group without registered consumer gives
 * RocketMQ's empty answer ({@code {}}: the client keeps its queues and asks again), with a remark saying why.
 * Safe for concurrent calls.
 */
public final class QueryAssignmentProcessor implements RequestProcessor {
    /** The POP share count a POP default applies, and what defaults mean: see the class comment. */
    public record Defaults(MessageRequestMode mode, int popShareQueueNum) {
    }

    private final MessageRequestModes modes;
    private final TopicQueues queues;
    private final ClientManager clients;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final Defaults defaults;
    private final BooleanSupplier isSlave;

    public QueryAssignmentProcessor(MessageRequestModes modes, TopicQueues queues, ClientManager clients,
                                    TopicConfigManager topics, SubscriptionGroupManager groups, Defaults defaults,
                                    BooleanSupplier isSlave) {
        this.modes = modes;
        this.queues = queues;
        this.clients = clients;
        this.topics = topics;
        this.groups = groups;
        this.defaults = defaults;
        this.isSlave = isSlave;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.SET_MESSAGE_REQUEST_MODE -> setMode(MessageRequestModeBody.decode(request.body()));
                case RequestCode.QUERY_ASSIGNMENT -> queryAssignment(QueryAssignmentBody.decode(request.body()));
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (JsonException e) {
            response = RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "bad request body: " + e.getMessage());
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand setMode(MessageRequestModeBody body) {
        String topic = body.topic();
        String group = body.consumerGroup();
        if (topic == null || topic.isBlank() || group == null || group.isBlank()) {
            return error(ResponseCode.SYSTEM_ERROR, "the request body names no topic or no consumerGroup");
        }
        if (topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)) {
            return error(ResponseCode.NO_PERMISSION, "retry topic is not allowed to set mode");
        }
        if (MessageRequestModes.modeOf(body).isEmpty()) {
            return error(ResponseCode.SYSTEM_ERROR, "unknown mode '" + body.mode() + "': PULL or POP");
        }
        if (isSlave.getAsBoolean()) {
            return error(ResponseCode.SYSTEM_ERROR, "this broker is a slave: its request modes are copied from its"
                + " master, set them there");
        }
        if (topics.get(topic) == null) {
            return error(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist");
        }
        try {
            if (groups.findOrAutoCreate(group).isEmpty()) {
                return error(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group " + group
                    + " does not exist (and autoCreateSubscriptionGroup is false)");
            }
            modes.set(body);
        } catch (IOException e) {
            return error(ResponseCode.SYSTEM_ERROR, "the request mode was not recorded: " + e.getMessage());
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand queryAssignment(QueryAssignmentBody body) {
        String topic = body.topic();
        String group = body.consumerGroup();
        if (topic == null || group == null || body.clientId() == null) {
            return error(ResponseCode.SYSTEM_ERROR, "the request body names no topic, consumerGroup or clientId");
        }
        boolean broadcasting = "BROADCASTING".equals(body.messageModel());
        if (!broadcasting && !"CLUSTERING".equals(body.messageModel())) {
            return error(ResponseCode.SYSTEM_ERROR, "unknown messageModel '" + body.messageModel()
                + "': CLUSTERING or BROADCASTING");
        }
        Optional<QueueAllocation.Strategy> strategy = QueueAllocation.Strategy.named(body.strategyName());
        if (!broadcasting && strategy.isEmpty()) {
            return error(ResponseCode.SYSTEM_ERROR, "the broker does not allocate with strategy '"
                + body.strategyName() + "'; it supports " + String.join(", ", QueueAllocation.STRATEGIES));
        }
        MessageRequestModeBody mode = modeOf(topic, group);
        MessageRequestMode requestMode = MessageRequestModes.modeOf(mode).orElse(MessageRequestMode.PULL);
        Optional<List<MessageQueue>> route;
        try {
            route = queues.readableQueues(topic);
        } catch (TopicQueues.RouteUnavailableException e) {
            return error(ResponseCode.SYSTEM_ERROR, e.getMessage());
        }
        if (route.isEmpty()) {
            return noAssignment("topic " + topic + " has no route");
        }
        List<MessageQueue> all = QueueAllocation.sorted(route.get());
        if (broadcasting) {
            return assigned(all, requestMode);
        }
        ConsumerGroupInfo info = clients.consumerGroup(group);
        if (info == null || info.isEmpty()) {
            return noAssignment("no consumer of group " + group + " is registered on this broker");
        }
        List<String> clientIds = info.remotingClientIds();
        Collection<MessageQueue> result = requestMode == MessageRequestMode.POP
            ? QueueAllocation.pop(strategy.get(), body.clientId(), all, clientIds, mode.popShareQueueNum())
            : QueueAllocation.pull(strategy.get(), body.clientId(), all, clientIds);
        return assigned(result, requestMode);
    }

    /** The recorded entry, else RocketMQ's default: PULL for a retry topic, else the broker's default mode. */
    MessageRequestModeBody modeOf(String topic, String group) {
        return modes.get(topic, group).orElseGet(() -> {
            if (topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX) || defaults.mode() == MessageRequestMode.PULL) {
                return new MessageRequestModeBody(topic, group, MessageRequestMode.PULL.name(), 0);
            }
            return new MessageRequestModeBody(topic, group, defaults.mode().name(), defaults.popShareQueueNum());
        });
    }

    private static RemotingCommand assigned(Collection<MessageQueue> queues, MessageRequestMode mode) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(QueryAssignmentBody.assignments(queues, mode.name()));
        return response;
    }

    private static RemotingCommand noAssignment(String why) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, "no assignment now: " + why);
        response.setBody(QueryAssignmentBody.assignments(null, null));
        return response;
    }

    private static RemotingCommand error(int code, String remark) {
        return RemotingCommand.response(code, remark);
    }
}
