package io.basalt.broker.processor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.client.QueueLockManager.MessageQueue;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.filter.SqlFilterException;
import io.basalt.broker.protocol.CheckClientRequestBody;
import io.basalt.broker.protocol.HeartbeatData;
import io.basalt.broker.protocol.LockBatchBody;
import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client membership: HEART_BEAT (registers producers and consumers with their subscriptions, records
 * each consumer group, auto-created if allowed, and creates its {@code %RETRY%} topic with the group's
 * {@code retryQueueNums}), UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP (what
 * rebalancing divides queues by), CHECK_CLIENT_CONFIG (which push and lite pull consumers send at start
 * for a SQL92 subscription: refused when {@code enablePropertyFilter} is off or the expression does not
 * compile), and LOCK_BATCH_MQ / UNLOCK_BATCH_MQ for orderly consumers. SQL92 subscriptions of heartbeats are
 * compiled into {@link ConsumerFilters} for the pull path. Safe for concurrent calls.
 */
public final class ClientManageProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(ClientManageProcessor.class);

    private final ClientManager clients;
    private final QueueLockManager locks;
    private final SubscriptionGroupManager subscriptionGroups;
    private final TopicConfigManager topics;
    private final ConsumerFilters filters;

    public ClientManageProcessor(ClientManager clients, QueueLockManager locks,
                                 SubscriptionGroupManager subscriptionGroups, TopicConfigManager topics,
                                 ConsumerFilters filters) {
        this.clients = clients;
        this.locks = locks;
        this.subscriptionGroups = subscriptionGroups;
        this.topics = topics;
        this.filters = filters;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) throws IOException {
        RequestFields f = new RequestFields(request);
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.HEART_BEAT -> heartbeat(context, request);
                case RequestCode.UNREGISTER_CLIENT -> unregister(f);
                case RequestCode.GET_CONSUMER_LIST_BY_GROUP -> consumerList(f);
                case RequestCode.CHECK_CLIENT_CONFIG -> checkClientConfig(request);
                case RequestCode.LOCK_BATCH_MQ -> lock(request, true);
                case RequestCode.UNLOCK_BATCH_MQ -> lock(request, false);
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, e.getMessage());
        }
        return CompletableFuture.completedFuture(response);
    }

    /**
     * Auto-creates the consumer's group and its retry topic. A failure to persist them (a full disk)
     * does not fail the heartbeat: both stay created in memory and the consumer is registered, so it
     * still reads; the previous subscriptionGroup.json / topics.json stay intact (atomic writes).
     */
    private void recordGroupAndRetryTopic(String groupName) {
        try {
            Optional<SubscriptionGroupConfig> group = subscriptionGroups.findOrAutoCreate(groupName);
            if (group.isPresent()) {
                topics.createIfAbsent(TopicValidator.retryTopic(groupName), group.get().retryQueueNums(),
                    Perm.READ | Perm.WRITE);
            }
        } catch (IOException e) {
            log.warn("Consumer group {} is served from memory: persisting its subscription group or retry topic "
                + "failed ({}); the files keep their previous content", groupName, e.toString());
        }
    }

    private RemotingCommand heartbeat(RequestContext context, RemotingCommand request) throws IOException {
        HeartbeatData data;
        try {
            data = HeartbeatData.decode(request.body());
        } catch (IOException e) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "bad heartbeat body: " + e.getMessage());
        }
        String remote = String.valueOf(context.remoteAddress());
        long now = clients.now();
        // as RocketMQ's ClientChannelInfo: the client's language and version are the heartbeat request's own
        String language = request.language() == null ? null : request.language().name();
        for (HeartbeatData.ConsumerData c : data.consumers()) {
            // as RocketMQ: a group that is not recorded (and may not be) is registered without a retry topic
            recordGroupAndRetryTopic(c.groupName());
            List<SubscriptionData> subs = new ArrayList<>();
            for (HeartbeatData.Subscription s : c.subscriptions()) {
                SubscriptionData parsed = SubscriptionData.of(s.topic(), s.subString(), s.subVersion(), s.expressionType());
                subs.add(parsed);
                filters.register(c.groupName(), parsed);
            }
            clients.registerConsumer(c.groupName(), new ConsumerGroupInfo.Member(data.clientId(), remote,
                c.consumeType(), c.messageModel(), c.consumeFromWhere(), now, context.connection(), language,
                request.version()), subs);
        }
        for (String group : data.producerGroups()) {
            clients.registerProducer(group, data.clientId(), context.connection(), language, request.version());
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("IS_SUPPORT_HEART_BEAT_V2", "false");
        response.putExtField("IS_SUB_CHANGE", "true");
        return response;
    }

    private RemotingCommand unregister(RequestFields f) throws RequestFields.BadRequestException {
        String clientId = f.requireString("clientID");
        String producerGroup = f.string("producerGroup");
        String consumerGroup = f.string("consumerGroup");
        if (producerGroup != null) {
            clients.unregisterProducer(producerGroup, clientId);
        }
        if (consumerGroup != null) {
            clients.unregisterConsumer(consumerGroup, clientId);
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand consumerList(RequestFields f) throws RequestFields.BadRequestException {
        String group = f.requireString("consumerGroup");
        ConsumerGroupInfo info = clients.consumerGroup(group);
        // the list remoting clients rebalance by: gRPC members receive from every queue and are not in it
        List<String> ids = info == null ? List.of() : info.remotingClientIds();
        if (ids.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no consumer for this group, " + group);
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(RouteBodies.consumerIdList(ids));
        return response;
    }

    /**
     * RocketMQ's answer: TAG (or no subscription) SUCCESS; another type SYSTEM_ERROR without
     * {@code enablePropertyFilter}, else SUBSCRIPTION_PARSE_FAILED with the parser's message when it does not
     * compile. The client's start() fails with either.
     */
    private RemotingCommand checkClientConfig(RemotingCommand request) {
        CheckClientRequestBody body;
        try {
            body = request.body() == null ? null : CheckClientRequestBody.decode(request.body());
        } catch (JsonException e) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "bad client config body: " + e.getMessage());
        }
        if (body == null || !body.hasSubscription() || SubscriptionData.isTagType(body.expressionType())) {
            return RemotingCommand.response(ResponseCode.SUCCESS, null);
        }
        if (!filters.enablePropertyFilter()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, ConsumerFilters.notSupported(body.expressionType()));
        }
        try {
            filters.compile(body.expressionType(), body.subString());
        } catch (SqlFilterException e) {
            log.warn("client {} of group {} filters by an expression that does not compile, [{}]: {}", body.clientId(),
                body.group(), body.subString(), e.getMessage());
            return RemotingCommand.response(ResponseCode.SUBSCRIPTION_PARSE_FAILED, e.getMessage());
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    /** LockBatchRequestBody / UnlockBatchRequestBody: {consumerGroup, clientId, mqSet:[{topic, brokerName, queueId}]}. */
    private RemotingCommand lock(RemotingCommand request, boolean lock) {
        if (request.body() == null || request.body().length == 0) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "lock request without a body");
        }
        LockBatchBody body;
        try {
            body = LockBatchBody.decode(request.body());
        } catch (JsonException e) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "bad lock body: " + e.getMessage());
        }
        String group = body.consumerGroup();
        String clientId = body.clientId();
        Set<MessageQueue> queues = new LinkedHashSet<>();
        body.mqSet().forEach(q -> queues.add(new MessageQueue(q.topic(), q.brokerName(), q.queueId())));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        if (!lock) {
            locks.unlock(group, clientId, queues);
            return response;
        }
        Set<MessageQueue> locked = locks.tryLock(group, clientId, queues);
        response.setBody(LockBatchBody.lockedBody(locked.stream()
            .map(q -> new io.basalt.broker.protocol.MessageQueue(q.topic(), q.brokerName(), q.queueId())).toList()));
        if (locked.size() < queues.size()) {
            log.debug("group {} client {} locked {} of {} queues", group, clientId, locked.size(), queues.size());
        }
        return response;
    }
}
