package io.basalt.broker.processor.admin;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.QuerySubscriptionResponseBody;
import io.basalt.broker.protocol.QueueTimeSpan;
import io.basalt.broker.protocol.SubscriptionData;
import io.basalt.broker.protocol.TopicList;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The admin API's questions about one consumer group, answered as RocketMQ's {@code AdminBrokerProcessor} does:
 * QUERY_TOPICS_BY_CONSUMER (the topics the group has committed offsets for, with this broker's address; the admin
 * client asks every broker of the route of {@code %RETRY%<group>}), QUERY_SUBSCRIPTION_BY_CONSUMER (the group's
 * online subscription to a topic, none when offline) and QUERY_CONSUME_TIME_SPAN (per write queue of the topic: the
 * store times of the first, the last and the last consumed message, and how long the next message to consume has
 * waited). Unlike RocketMQ, a group without a committed offset on a queue counts as at offset 0 there (RocketMQ
 * reads the store time at offset −2 and reports a delay of the whole epoch). Safe for concurrent calls.
 */
public final class ConsumerQueryProcessor implements RequestProcessor {
    private final String brokerName;
    private final String brokerAddr;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;
    private final LongSupplier clockMs;
    private final ZoneId zone;

    public ConsumerQueryProcessor(String brokerName, String brokerAddr, TopicConfigManager topics,
        ConsumerOffsetManager offsets, ClientManager clients, MessageStore store, LongSupplier clockMs, ZoneId zone) {
        this.brokerName = brokerName;
        this.brokerAddr = brokerAddr;
        this.topics = topics;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
        this.clockMs = clockMs;
        this.zone = zone;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields fields = new RequestFields(request);
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.QUERY_TOPICS_BY_CONSUMER -> topicsOf(fields.requireString("group"));
                case RequestCode.QUERY_SUBSCRIPTION_BY_CONSUMER ->
                    subscription(fields.requireString("group"), fields.string("topic"));
                case RequestCode.QUERY_CONSUME_TIME_SPAN ->
                    timeSpan(fields.requireString("group"), fields.requireString("topic"));
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand topicsOf(String group) {
        return success(new TopicList(offsets.topicsOf(group), brokerAddr).encode());
    }

    private RemotingCommand subscription(String group, String topic) {
        ConsumerGroupInfo live = clients.consumerGroup(group);
        io.basalt.broker.client.SubscriptionData s = live == null || topic == null ? null : live.subscription(topic);
        SubscriptionData data = s == null ? null
            : new SubscriptionData(s.topic(), s.subString(), s.tagsSet(), s.codeSet(), s.subVersion(), s.expressionType(), false);
        return success(new QuerySubscriptionResponseBody(group, topic, data).encode());
    }

    private RemotingCommand timeSpan(String group, String topic) {
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist");
        }
        long now = clockMs.getAsLong();
        List<QueueTimeSpan> spans = new ArrayList<>();
        for (int queueId = 0; queueId < config.writeQueueNums(); queueId++) {
            long min = store.getMinOffsetInQueue(topic, queueId);
            long max = store.getMaxOffsetInQueue(topic, queueId);
            long minTime = max > min ? store.getMessageStoreTimeStamp(topic, queueId, min) : -1;
            long maxTime = store.getMessageStoreTimeStamp(topic, queueId, max - 1);
            long committed = Math.max(0, offsets.queryOffset(group, topic, queueId));
            long consumeTime = committed > 0 ? store.getMessageStoreTimeStamp(topic, queueId, committed - 1) : minTime;
            long delay = 0;
            if (committed < max) {
                long next = store.getMessageStoreTimeStamp(topic, queueId, Math.max(committed, min));
                delay = next > 0 ? Math.max(0, now - next) : 0;
            }
            spans.add(new QueueTimeSpan(new MessageQueue(topic, brokerName, queueId), minTime, maxTime, consumeTime, delay));
        }
        return success(QueueTimeSpan.encodeBody(spans, zone));
    }

    private static RemotingCommand success(byte[] body) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body);
        return response;
    }
}
