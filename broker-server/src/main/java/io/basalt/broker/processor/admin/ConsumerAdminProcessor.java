package io.basalt.broker.processor.admin;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.Connection;
import io.basalt.broker.protocol.ConsumeStats;
import io.basalt.broker.protocol.ConsumerConnection;
import io.basalt.broker.protocol.GroupList;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.OffsetWrapper;
import io.basalt.broker.protocol.SubscriptionData;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Consumer progress for the admin tool, as RocketMQ's {@code AdminBrokerProcessor} answers it:
 * GET_CONSUME_STATS (per queue: the broker's max offset, the group's committed offset and the store
 * time of the last consumed message), GET_CONSUMER_CONNECTION_LIST and QUERY_TOPIC_CONSUME_BY_WHO.
 * Basalt keeps no pull offsets apart from committed ones, so {@code pullOffset} is the committed offset,
 * and no per-group TPS, so {@code consumeTps} is 0. Safe for concurrent calls.
 */
public final class ConsumerAdminProcessor implements RequestProcessor {
    private final String brokerName;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;

    public ConsumerAdminProcessor(String brokerName, TopicConfigManager topics, ConsumerOffsetManager offsets,
        ClientManager clients, MessageStore store) {
        this.brokerName = brokerName;
        this.topics = topics;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        AdminFields fields = new AdminFields(request);
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.GET_CONSUME_STATS -> consumeStats(fields.requireString("consumerGroup"), fields.string("topic"));
                case RequestCode.GET_CONSUMER_CONNECTION_LIST -> connections(fields.requireString("consumerGroup"));
                case RequestCode.QUERY_TOPIC_CONSUME_BY_WHO -> consumedBy(fields.requireString("topic"));
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (AdminFields.BadRequestException e) {
            response = AdminFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand consumeStats(String group, String topic) {
        Set<String> consumedTopics = topic != null ? Set.of(topic) : topicsOf(group);
        ConsumerGroupInfo live = clients.consumerGroup(group);
        Map<MessageQueue, OffsetWrapper> table = new LinkedHashMap<>();
        for (String name : new TreeSet<>(consumedTopics)) {
            TopicConfig config = topics.get(name);
            if (config == null) {
                continue;
            }
            // a live group that does not subscribe to the topic does not consume it (RocketMQ's rule)
            if (live != null && !live.subscriptions().isEmpty() && live.subscription(name) == null) {
                continue;
            }
            for (int queueId = 0; queueId < config.readQueueNums(); queueId++) {
                long brokerOffset = Math.max(0, store.getMaxOffsetInQueue(name, queueId));
                long consumerOffset = Math.max(0, offsets.queryOffset(group, name, queueId));
                long lastTimestamp = 0;
                if (consumerOffset > 0) {
                    lastTimestamp = Math.max(0, store.getMessageStoreTimeStamp(name, queueId, consumerOffset - 1));
                }
                table.put(new MessageQueue(name, brokerName, queueId),
                    new OffsetWrapper(brokerOffset, consumerOffset, consumerOffset, lastTimestamp));
            }
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ConsumeStats(table, 0).encode());
        return response;
    }

    /** Topics the group has committed offsets for (RocketMQ's whichTopicByConsumer). */
    private Set<String> topicsOf(String group) {
        Set<String> result = new HashSet<>();
        for (TopicConfig config : topics.all()) {
            if (offsets.groupsOf(config.topicName()).contains(group)) {
                result.add(config.topicName());
            }
        }
        return result;
    }

    private RemotingCommand connections(String group) {
        ConsumerGroupInfo info = clients.consumerGroup(group);
        if (info == null || info.isEmpty()) {
            return RemotingCommand.response(ResponseCode.CONSUMER_NOT_ONLINE, "the consumer group[" + group + "] not online");
        }
        Set<Connection> connections = new HashSet<>();
        String consumeType = null;
        String messageModel = null;
        String consumeFromWhere = null;
        for (ConsumerGroupInfo.Member member : info.members()) {
            // the client's language and version are not kept; fastjson leaves them at null and 0
            connections.add(new Connection(member.clientId(), member.remoteAddress(), null, 0));
            consumeType = member.consumeType();
            messageModel = member.messageModel();
            consumeFromWhere = member.consumeFromWhere();
        }
        Map<String, SubscriptionData> subscriptions = new HashMap<>();
        info.subscriptions().forEach((topic, s) -> subscriptions.put(topic,
            new SubscriptionData(s.topic(), s.subString(), s.tagsSet(), s.codeSet(), s.subVersion(), s.expressionType(), false)));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ConsumerConnection(connections, subscriptions, consumeType, messageModel, consumeFromWhere).encode());
        return response;
    }

    private RemotingCommand consumedBy(String topic) {
        Set<String> groups = new TreeSet<>(offsets.groupsOf(topic));
        for (String group : clients.consumerGroupNames()) {
            ConsumerGroupInfo info = clients.consumerGroup(group);
            if (info != null && info.subscription(topic) != null) {
                groups.add(group);
            }
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new GroupList(groups).encode());
        return response;
    }
}
