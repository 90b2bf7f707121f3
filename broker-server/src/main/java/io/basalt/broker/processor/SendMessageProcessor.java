package io.basalt.broker.processor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageBatchDecoder;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SEND_MESSAGE, SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE: validates the request (topic name, reserved
 * topics, body and properties size, queue id, permissions) with RocketMQ's codes and a remark saying
 * what is wrong, auto-creates the topic from its template when allowed, builds the stored message(s)
 * and answers when the store's future completes. Only the four "stored" statuses answer with the send
 * header; every refusal means nothing was written (docs/pain-points.md#pp-3), so a client may retry it safely.
 * Safe for concurrent calls.
 */
public final class SendMessageProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(SendMessageProcessor.class);
    private static final int MAX_PROPERTIES_LENGTH = Short.MAX_VALUE;
    static final String PROPERTY_CLUSTER = "CLUSTER";
    static final String REGION = "DefaultRegion";

    private final StoreHost host;
    private final BooleanSupplier writable;
    private final int maxMessageSize;
    private final MessageStore store;
    private final TopicConfigManager topics;
    private final BrokerCounters counters;
    private final UniqueIdGenerator ids;

    /**
     * @param writable       whether producers' writes are accepted now: a running, unfenced master (a slave or
     *                       a deposed master refuses)
     * @param maxMessageSize largest body accepted, bytes
     */
    public SendMessageProcessor(StoreHost host, BooleanSupplier writable, int maxMessageSize, MessageStore store,
                                TopicConfigManager topics, BrokerCounters counters) {
        this.host = host;
        this.writable = writable;
        this.maxMessageSize = maxMessageSize;
        this.store = store;
        this.topics = topics;
        this.counters = counters;
        this.ids = new UniqueIdGenerator(host.address());
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        long startNanos = System.nanoTime();
        SendMessageRequestHeader header;
        try {
            header = SendMessageRequestHeader.parse(request);
        } catch (RemotingCommandException e) {
            return done(BrokerResponseCode.INVALID_PARAMETER, "bad send request header: " + e.getMessage());
        }
        boolean batch = request.code() == RequestCode.SEND_BATCH_MESSAGE;
        String topic = header.getTopic();
        if (!writable.getAsBoolean()) {
            return done(ResponseCode.SERVICE_NOT_AVAILABLE, "the broker[" + host.brokerName()
                + "] is not writable (a slave, or a master fenced by a newer one), sending message is forbidden");
        }
        String invalid = TopicValidator.invalidReason(topic);
        if (invalid != null) {
            return done(batch ? ResponseCode.MESSAGE_ILLEGAL : BrokerResponseCode.INVALID_PARAMETER, invalid);
        }
        if (TopicValidator.isNotAllowedSendTopic(topic)) {
            return done(ResponseCode.NO_PERMISSION, "Sending message to topic[" + topic + "] is forbidden.");
        }
        if (batch && topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "batch request does not support retry group " + topic);
        }
        TopicConfig config;
        try {
            config = topicFor(header, context.remoteAddress());
        } catch (IOException e) {
            log.error("cannot persist the auto-created topic {}", topic, e);
            return done(ResponseCode.SYSTEM_ERROR, "cannot create topic " + topic + ": " + e.getMessage());
        }
        if (config == null) {
            return done(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist, apply first please!"
                + " (autoCreateTopicEnable is off, or the default topic " + header.getDefaultTopic()
                + " does not exist or cannot be inherited)");
        }
        if ((config.perm() & Perm.WRITE) == 0) {
            return done(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] sending message is forbidden");
        }
        int queueId = header.getQueueId() == null ? -1 : header.getQueueId();
        int queueNums = config.queueNums();
        if (queueId >= queueNums) {
            return done(BrokerResponseCode.INVALID_PARAMETER, "request queueId[" + queueId + "] is illegal, topic " + topic
                + " has " + queueNums + " queues (0.." + (queueNums - 1) + "), producer: " + context.remoteAddress());
        }
        if (queueId < 0) {
            queueId = ThreadLocalRandom.current().nextInt(Math.max(1, config.writeQueueNums()));
        }
        byte[] body = request.body();
        int bodyLength = body == null ? 0 : body.length;
        if (bodyLength > maxMessageSize) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the message body size " + bodyLength
                + " bytes exceeds maxMessageSize " + maxMessageSize + " bytes");
        }
        if (!batch && bodyLength == 0) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the message body is empty");
        }
        String properties = header.getProperties() == null ? "" : header.getProperties();
        if (properties.getBytes(StandardCharsets.UTF_8).length > MAX_PROPERTIES_LENGTH) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the message properties length exceeds " + MAX_PROPERTIES_LENGTH
                + " bytes");
        }
        InetSocketAddress bornHost = (InetSocketAddress) context.remoteAddress();
        int finalQueueId = queueId;
        java.util.function.Consumer<BrokerMessage.Builder> common = b -> b.topic(topic).queueId(finalQueueId)
            .bornTimestamp(header.getBornTimestamp()).bornHost(bornHost).storeHost(host.address())
            .sysFlag(header.getSysFlag()).reconsumeTimes(header.getReconsumeTimes() == null ? 0 : header.getReconsumeTimes());
        if (batch) {
            return sendBatch(header, body, properties, common, startNanos);
        }
        String stored = withBrokerProperties(properties, true);
        if (stored.getBytes(StandardCharsets.UTF_8).length > MAX_PROPERTIES_LENGTH) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the message properties length exceeds " + MAX_PROPERTIES_LENGTH
                + " bytes");
        }
        BrokerMessage.Builder builder = BrokerMessage.builder().flag(header.getFlag()).body(body).propertiesString(stored);
        common.accept(builder);
        BrokerMessage message = builder.build();
        return store.asyncPutMessage(message)
            .thenApply(result -> response(result, List.of(message), startNanos));
    }

    private CompletableFuture<RemotingCommand> sendBatch(SendMessageRequestHeader header, byte[] body, String properties,
        java.util.function.Consumer<BrokerMessage.Builder> common, long startNanos) {
        if (body == null || body.length == 0) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the batch is empty");
        }
        // Each inner message keeps its own UNIQ_KEY: the batch's own id is not appended to them.
        String batchProperties = withBrokerProperties(
            removeProperty(properties, MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), false);
        List<BrokerMessage> messages;
        try {
            messages = MessageBatchDecoder.decode(ByteBuffer.wrap(body), batchProperties, common);
        } catch (IllegalArgumentException e) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "malformed batch: " + e.getMessage());
        }
        for (BrokerMessage m : messages) {
            if (m.propertiesLength() > MAX_PROPERTIES_LENGTH) {
                return done(ResponseCode.MESSAGE_ILLEGAL, "a batch message's properties exceed " + MAX_PROPERTIES_LENGTH
                    + " bytes");
            }
        }
        return store.asyncPutMessages(messages).thenApply(result -> response(result, messages, startNanos));
    }

    private TopicConfig topicFor(SendMessageRequestHeader header, SocketAddress remote) throws IOException {
        String topic = header.getTopic();
        TopicConfig config = topics.get(topic);
        if (config != null) {
            return config;
        }
        if (topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)) {
            return topics.createIfAbsent(topic, 1, Perm.READ | Perm.WRITE);
        }
        int clientQueueNums = header.getDefaultTopicQueueNums() == null ? 4 : header.getDefaultTopicQueueNums();
        Optional<TopicConfig> created = topics.createTopicInSendMessageMethod(topic, header.getDefaultTopic(),
            String.valueOf(remote), clientQueueNums, 0);
        return created.orElse(null);
    }

    /** The client's properties plus the broker's own: CLUSTER, and a UNIQ_KEY when the client sent none. */
    private String withBrokerProperties(String properties, boolean ensureUniqKey) {
        StringBuilder sb = new StringBuilder(properties.length() + 64).append(properties);
        if (sb.length() > 0 && sb.charAt(sb.length() - 1) != MessageProperties.PROPERTY_SEPARATOR) {
            sb.append(MessageProperties.PROPERTY_SEPARATOR);
        }
        if (ensureUniqKey && MessageProperties.parse(properties).get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX) == null) {
            append(sb, MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, ids.next());
        }
        append(sb, PROPERTY_CLUSTER, host.clusterName());
        return sb.toString();
    }

    private static void append(StringBuilder sb, String name, String value) {
        sb.append(name).append(MessageProperties.NAME_VALUE_SEPARATOR).append(value)
            .append(MessageProperties.PROPERTY_SEPARATOR);
    }

    private static String removeProperty(String properties, String name) {
        StringBuilder sb = new StringBuilder(properties.length());
        for (String pair : properties.split(String.valueOf(MessageProperties.PROPERTY_SEPARATOR))) {
            if (pair.isEmpty() || pair.startsWith(name + MessageProperties.NAME_VALUE_SEPARATOR)) {
                continue;
            }
            sb.append(pair).append(MessageProperties.PROPERTY_SEPARATOR);
        }
        return sb.toString();
    }

    private RemotingCommand response(PutMessageResult result, List<BrokerMessage> messages, long startNanos) {
        PutMessageStatus status = result.status();
        long bodyBytes = 0;
        for (BrokerMessage m : messages) {
            bodyBytes += m.body().length;
        }
        counters.putResult(messages.get(0).topic(), status, messages.size(), bodyBytes,
            System.nanoTime() - startNanos);
        int code = responseCode(status);
        if (!status.isStored()) {
            return RemotingCommand.response(code, result.reason() != null ? result.reason() : refusalRemark(status));
        }
        RemotingCommand response = RemotingCommand.response(code, storedRemark(status));
        StringJoiner msgIds = new StringJoiner(",");
        for (BrokerMessage m : messages) {
            msgIds.add(m.offsetMsgId());
        }
        BrokerMessage first = messages.get(0);
        response.putExtField("msgId", msgIds.toString());
        response.putExtField("queueId", Integer.toString(first.queueId()));
        response.putExtField("queueOffset", Long.toString(result.appendResult().queueOffset()));
        if (messages.size() == 1 && first.uniqKey() != null) {
            response.putExtField("transactionId", first.uniqKey());
        }
        response.putExtField("MSG_REGION", REGION);
        response.putExtField("TRACE_ON", "true");
        return response;
    }

    /** RocketMQ's response code for a store status (SendMessageProcessor.handlePutMessageResult). */
    static int responseCode(PutMessageStatus status) {
        return switch (status) {
            case PUT_OK -> ResponseCode.SUCCESS;
            case FLUSH_DISK_TIMEOUT -> ResponseCode.FLUSH_DISK_TIMEOUT;
            case FLUSH_SLAVE_TIMEOUT -> ResponseCode.FLUSH_SLAVE_TIMEOUT;
            case SLAVE_NOT_AVAILABLE -> ResponseCode.SLAVE_NOT_AVAILABLE;
            case SERVICE_NOT_AVAILABLE -> ResponseCode.SERVICE_NOT_AVAILABLE;
            case MESSAGE_ILLEGAL, PROPERTIES_SIZE_EXCEEDED -> ResponseCode.MESSAGE_ILLEGAL;
            case OS_PAGE_CACHE_BUSY -> ResponseCode.SYSTEM_BUSY;
            case CREATE_MAPPED_FILE_FAILED, UNKNOWN_ERROR -> ResponseCode.SYSTEM_ERROR;
        };
    }

    private String refusalRemark(PutMessageStatus status) {
        return switch (status) {
            case SERVICE_NOT_AVAILABLE -> {
                String disk = store.diskFullReason();
                yield "service not available now, message not stored"
                    + (disk == null || disk.isEmpty() ? " (store not running or not writable)" : ": " + disk);
            }
            case MESSAGE_ILLEGAL -> "the message is illegal (too large, or its topic cannot be stored), not stored";
            case PROPERTIES_SIZE_EXCEEDED -> "the message properties exceed " + MAX_PROPERTIES_LENGTH + " bytes, not stored";
            case OS_PAGE_CACHE_BUSY -> "[PC_SYNCHRONIZED]broker busy, start flow control for a while; not stored";
            case CREATE_MAPPED_FILE_FAILED -> "create mapped file failed, server is busy or broken; not stored";
            default -> "UNKNOWN_ERROR, not stored";
        };
    }

    private static String storedRemark(PutMessageStatus status) {
        return switch (status) {
            case FLUSH_DISK_TIMEOUT -> "stored, but not yet flushed to disk within syncFlushTimeout";
            case FLUSH_SLAVE_TIMEOUT -> "stored, but no slave acknowledged it in time";
            case SLAVE_NOT_AVAILABLE -> "stored on the master only: no slave available";
            default -> null;
        };
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
