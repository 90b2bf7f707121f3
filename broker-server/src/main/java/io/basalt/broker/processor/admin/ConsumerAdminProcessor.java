package io.basalt.broker.processor.admin;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Connection;
import io.basalt.broker.protocol.ConsumeStats;
import io.basalt.broker.protocol.ConsumerConnection;
import io.basalt.broker.protocol.GroupList;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.OffsetWrapper;
import io.basalt.broker.protocol.SubscriptionData;
import io.basalt.broker.stats.GroupGetStats;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.netty.RemotingTimeoutException;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Consumer progress for the admin tool, as RocketMQ's {@code AdminBrokerProcessor} answers it:
 * GET_CONSUME_STATS (per queue: the broker's max offset, the group's committed offset and the store
 * time of the last consumed message), GET_CONSUMER_CONNECTION_LIST and QUERY_TOPIC_CONSUME_BY_WHO; and
 * GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY, which it passes on to the consumer client
 * over that client's own connection and answers with the client's answer.
 * The queues are computed by {@link GroupProgress}; {@code consumeTps} is RocketMQ's: the sum over the reported
 * topics of the group's 1-minute TPS of messages delivered by FOUND pulls ({@link GroupGetStats}). Safe for
 * concurrent calls.
 */
public final class ConsumerAdminProcessor implements RequestProcessor {
    /** RocketMQ's {@code Broker2Client.callClient} timeout. */
    private static final long CALL_CONSUMER_TIMEOUT_MS = 10_000;

    private final String brokerName;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;
    private final GroupProgress progress;

    public ConsumerAdminProcessor(String brokerName, TopicConfigManager topics, ConsumerOffsetManager offsets,
        ClientManager clients, MessageStore store, GroupGetStats groupGets) {
        this.brokerName = brokerName;
        this.topics = topics;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
        this.progress = new GroupProgress(brokerName, offsets, clients, store, groupGets);
    }

    /** How this processor computes a group's progress, shared with GET_BROKER_CONSUME_STATS. */
    GroupProgress progress() {
        return progress;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields fields = new RequestFields(request);
        if (request.code() == RequestCode.GET_CONSUMER_RUNNING_INFO || request.code() == RequestCode.CONSUME_MESSAGE_DIRECTLY) {
            try {
                return callConsumer(request, fields.requireString("consumerGroup"), fields.requireString("clientId"));
            } catch (RequestFields.BadRequestException e) {
                return CompletableFuture.completedFuture(RequestFields.badRequest(e));
            }
        }
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.GET_CONSUME_STATS -> consumeStats(fields.requireString("consumerGroup"), fields.string("topic"));
                case RequestCode.GET_CONSUMER_CONNECTION_LIST -> connections(fields.requireString("consumerGroup"));
                case RequestCode.QUERY_TOPIC_CONSUME_BY_WHO -> consumedBy(fields.requireString("topic"));
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand consumeStats(String group, String topic) {
        Set<String> consumedTopics = topic != null ? Set.of(topic) : progress.topicsOf(group);
        Map<MessageQueue, OffsetWrapper> table = new LinkedHashMap<>();
        double consumeTps = 0;
        for (String name : new TreeSet<>(consumedTopics)) {
            TopicConfig config = topics.get(name);
            if (config == null || !progress.consumes(group, name)) {
                continue;
            }
            progress.queues(group, name, config.readQueueNums(), table);
            consumeTps += progress.consumeTps(group, name);
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ConsumeStats(table, consumeTps).encode());
        return response;
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
            connections.add(new Connection(member.clientId(), clientAddr(member), member.language(), member.version()));
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

    /**
     * Passes the request on to the consumer client {@code clientId} of {@code group} over its connection
     * (RocketMQ's {@code Broker2Client.callClient}) and answers with what the client answers.
     */
    private CompletableFuture<RemotingCommand> callConsumer(RemotingCommand request, String group, String clientId) {
        ConsumerGroupInfo info = clients.consumerGroup(group);
        RemotingConnection connection = info == null ? null : info.members().stream()
            .filter(m -> m.clientId().equals(clientId) && m.connection() != null && m.connection().isActive())
            .map(ConsumerGroupInfo.Member::connection).findFirst().orElse(null);
        if (connection == null) {
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                String.format("The Consumer <%s> <%s> not online", group, clientId)));
        }
        RemotingCommand forward = RemotingCommand.request(request.code());
        if (request.extFields() != null) {
            forward.setExtFields(new HashMap<>(request.extFields()));
        }
        forward.setBody(request.body());
        if (request.code() == RequestCode.CONSUME_MESSAGE_DIRECTLY) {
            // as RocketMQ: the client gets the stored record of the message named by msgId, and this broker's name
            String msgId = request.extFields() == null ? null : request.extFields().get("msgId");
            byte[] record = msgId == null ? null : store.messageRecordById(msgId);
            if (record == null) {
                return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                    "no message with msgId " + msgId + " in this broker's store"));
            }
            forward.putExtField("brokerName", brokerName);
            forward.setBody(record);
        }
        return connection.invoke(forward, CALL_CONSUMER_TIMEOUT_MS).handle((answer, error) -> {
            if (error == null) {
                RemotingCommand response = RemotingCommand.response(answer.code(), answer.remark());
                if (answer.extFields() != null) {
                    response.setExtFields(new HashMap<>(answer.extFields()));
                }
                response.setBody(answer.body());
                return response;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RemotingTimeoutException) {
                return RemotingCommand.response(ResponseCode.CONSUME_MSG_TIMEOUT,
                    String.format("consumer <%s> <%s> Timeout: %s", group, clientId, cause.getMessage()));
            }
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                String.format("invoke consumer <%s> <%s> Exception: %s", group, clientId, cause));
        });
    }

    /** RocketMQ's {@code RemotingHelper.parseChannelRemoteAddr} form: {@code 127.0.0.1:50000}. */
    static String clientAddr(ConsumerGroupInfo.Member member) {
        if (member.connection() != null && member.connection().remoteAddress() instanceof InetSocketAddress address
            && address.getAddress() != null) {
            return address.getAddress().getHostAddress() + ":" + address.getPort();
        }
        String text = member.remoteAddress();
        return text == null ? null : text.substring(text.lastIndexOf('/') + 1);
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
