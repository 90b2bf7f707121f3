package io.basalt.broker.processor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.basalt.broker.metrics.RocketMqMessageType;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.retry.RetryTopics;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageBatchDecoder;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoreException;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SEND_MESSAGE, SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE: validates the request with {@link SendRequestCheck}
 * (topic name, reserved topics, body and properties size, queue id, permissions; RocketMQ's codes and a
 * remark saying what is wrong; the topic auto-created from its template when allowed), builds the stored message(s)
 * and answers when the store's future completes. Only the four "stored" statuses answer with the send
 * header; every refusal means nothing was written (docs/pain-points.md#pp-3), so a client may retry it safely.
 * A send to a {@code %RETRY%} topic may be redirected to the group's DLQ first ({@link RetryTopicSends}).
 * Safe for concurrent calls.
 */
public final class SendMessageProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(SendMessageProcessor.class);
    private static final int MAX_PROPERTIES_LENGTH = SendRequestCheck.MAX_PROPERTIES_LENGTH;
    static final String PROPERTY_CLUSTER = "CLUSTER";

    private final StoreHost host;
    private final SendRequestCheck check;
    private final MessageStore store;
    private final BrokerCounters counters;
    private final UniqueIdGenerator ids;
    private final RetryTopicSends retries;
    private final boolean rejectTransactionMessage;
    private final Consumer<String> halfMessageStored;

    /**
     * @param writable       whether producers' writes are accepted now: a running, unfenced master (a slave or
     *                       a deposed master refuses)
     * @param maxMessageSize largest body accepted, bytes
     * @param groups         consumer groups, for sends to their {@code %RETRY%} topics ({@link RetryTopicSends})
     * @param locks          the orderly consumers' queue locks: a group holding one dead-letters its retry sends
     * @param retryCounts    where retries and dead letters of sends to retry topics are counted per group
     */
    public SendMessageProcessor(StoreHost host, BooleanSupplier writable, int maxMessageSize, MessageStore store,
                                TopicConfigManager topics, BrokerCounters counters, SubscriptionGroupManager groups,
                                QueueLockManager locks, RetryCounts retryCounts) {
        this(host, writable, maxMessageSize, store, topics, counters, groups, locks, retryCounts, false, realTopic -> { });
    }

    /**
     * @param rejectTransactionMessage refuse transactional half messages (NO_PERMISSION), RocketMQ's key
     * @param halfMessageStored        told the real topic of each half message stored in RMQ_SYS_TRANS_HALF_TOPIC
     */
    public SendMessageProcessor(StoreHost host, BooleanSupplier writable, int maxMessageSize, MessageStore store,
                                TopicConfigManager topics, BrokerCounters counters, SubscriptionGroupManager groups,
                                QueueLockManager locks, RetryCounts retryCounts, boolean rejectTransactionMessage,
                                Consumer<String> halfMessageStored) {
        this.rejectTransactionMessage = rejectTransactionMessage;
        this.halfMessageStored = halfMessageStored;
        this.host = host;
        this.retries = new RetryTopicSends(groups, locks, topics, retryCounts);
        this.check = new SendRequestCheck(host, writable, maxMessageSize, topics);
        this.store = store;
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
            return CompletableFuture.completedFuture(RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER,
                "bad send request header: " + e.getMessage()));
        }
        boolean batch = request.code() == RequestCode.SEND_BATCH_MESSAGE;
        return send(context, header, request.body(), batch, request.version(), startNanos)
            .thenApply(SendOutcome::toResponse);
    }

    /**
     * A send whose header is already read: the same checks, store put and counting as a SEND_MESSAGE request, for
     * a caller that builds the header itself (the gRPC endpoint) and reads the outcome without a response frame.
     *
     * @param batch   a SEND_BATCH_MESSAGE body (RocketMQ's encoded messages)
     * @param version the client's remoting version (read by the retry-topic routing)
     */
    public CompletableFuture<SendOutcome> send(RequestContext context, SendMessageRequestHeader header, byte[] body,
                                               boolean batch, int version) {
        return send(context, header, body, batch, version, System.nanoTime());
    }

    private CompletableFuture<SendOutcome> send(RequestContext context, SendMessageRequestHeader header, byte[] body,
                                                boolean batch, int version, long startNanos) {
        SendRequestCheck.Verdict verdict = check.check(header, body, context.remoteAddress(), batch);
        if (verdict instanceof SendRequestCheck.Refused refused) {
            return done(refused.code(), refused.remark());
        }
        int acceptedQueueId = ((SendRequestCheck.Accepted) verdict).queueId();
        String clientProperties = header.getProperties() == null ? "" : header.getProperties();
        if (rejectTransactionMessage && !batch && SendRequestCheck.isHalfMessage(header)) {
            return done(ResponseCode.NO_PERMISSION, "the broker[" + host.address().getHostString()
                + "] sending transaction message is forbidden");
        }
        RetryTopicSends.Route route = null;
        if (!batch && RetryTopics.isRetryTopic(header.getTopic())) {
            try {
                route = retries.route(header, version, clientProperties);
            } catch (IOException e) {
                log.error("cannot persist the DLQ topic or group created for a send to {}", header.getTopic(), e);
                return done(ResponseCode.SYSTEM_ERROR, "cannot create the DLQ of " + header.getTopic() + ": "
                    + e.getMessage());
            }
            if (route instanceof RetryTopicSends.Refused refused) {
                return done(refused.code(), refused.remark());
            }
        }
        RetryTopicSends.DeadLetter deadLetter = route instanceof RetryTopicSends.DeadLetter d ? d : null;
        String topic = deadLetter != null ? deadLetter.topic() : header.getTopic();
        int queueId = deadLetter != null ? 0 : acceptedQueueId;
        String properties = deadLetter != null ? deadLetter.properties() : clientProperties;
        InetSocketAddress bornHost = (InetSocketAddress) context.remoteAddress();
        java.util.function.Consumer<BrokerMessage.Builder> common = b -> b.topic(topic).queueId(queueId)
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
        RetryTopicSends.Route retryRoute = route;
        return store.asyncPutMessage(message)
            .thenApply(result -> {
                if (retryRoute != null && result.status().isStored()) {
                    counted(retryRoute, message);
                }
                if (result.status().isStored() && result.appendedMessages() != null) {
                    halfStored(result.appendedMessages().get(0));
                }
                return response(result, List.of(message), startNanos);
            })
            .exceptionally(SendMessageProcessor::refusedAfterFailStop);
    }

    /** Tells the transaction bookkeeping about a stored half message (the transform parked it in the half topic). */
    private void halfStored(BrokerMessage appended) {
        if (TransactionalMessages.HALF_TOPIC.equals(appended.topic())) {
            String realTopic = MessageProperties.parse(appended.propertiesString())
                .get(TransactionalMessages.PROPERTY_REAL_TOPIC);
            if (realTopic != null) {
                halfMessageStored.accept(realTopic);
            }
        }
    }

    /** Counts a stored send to a retry topic as a retry or a dead letter of its group. */
    private void counted(RetryTopicSends.Route route, BrokerMessage message) {
        if (route instanceof RetryTopicSends.DeadLetter d) {
            String originTopic = MessageProperties.parse(message.propertiesString())
                .get(ConsumerSendMsgBackProcessor.PROPERTY_RETRY_TOPIC);
            retries.counts().deadLettered(d.group(), d.topic(), originTopic, message.uniqKey(), message.reconsumeTimes(),
                message.storeTimestamp());
        } else if (route instanceof RetryTopicSends.Retry r) {
            retries.counts().retried(r.group());
        }
    }

    private CompletableFuture<SendOutcome> sendBatch(SendMessageRequestHeader header, byte[] body, String properties,
        java.util.function.Consumer<BrokerMessage.Builder> common, long startNanos) {
        if (body == null || body.length == 0) {
            return done(ResponseCode.MESSAGE_ILLEGAL, "the batch is empty");
        }
        int transactionType = (header.getSysFlag() == null ? 0 : header.getSysFlag()) & TransactionalMessages.TRANSACTION_TYPE_MASK;
        if (transactionType != TransactionalMessages.TRANSACTION_NOT_TYPE) {
            // RocketMQ's CommitLog.asyncPutMessages: a batch cannot be transactional
            return done(ResponseCode.MESSAGE_ILLEGAL, "a batch cannot be a transactional message (sysFlag transaction"
                + " bits 0x" + Integer.toHexString(transactionType) + "); send transactional messages one by one");
        }
        if (properties.contains(MessageProperties.DELAY_TIME_LEVEL) && delayLevelOf(properties) > 0) {
            // RocketMQ's CommitLog.asyncPutMessages: a batch cannot be delayed
            return done(ResponseCode.MESSAGE_ILLEGAL, "a batch cannot have a delay level (property DELAY); send "
                + "delayed messages one by one");
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
        return store.asyncPutMessages(messages).thenApply(result -> response(result, messages, startNanos))
            .exceptionally(SendMessageProcessor::refusedAfterFailStop);
    }

    /** The batch wrapper's DELAY level. */
    private static int delayLevelOf(String properties) {
        return DelayLevels.levelOf(MessageProperties.parse(properties).get(MessageProperties.DELAY_TIME_LEVEL));
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

    private SendOutcome response(PutMessageResult result, List<BrokerMessage> messages, long startNanos) {
        PutMessageStatus status = result.status();
        long bodyBytes = 0;
        for (BrokerMessage m : messages) {
            bodyBytes += m.body().length;
        }
        long storedBytes = status.isStored() && result.appendResult() != null ? result.appendResult().wroteBytes() : 0;
        counters.putResult(messages.get(0).topic(), status, messages.size(), bodyBytes, storedBytes,
            System.nanoTime() - startNanos);
        int code = responseCode(status);
        if (!status.isStored()) {
            return SendOutcome.refused(code, result.reason() != null ? result.reason() : refusalRemark(status));
        }
        counters.stored(messages.get(0).topic(), RocketMqMessageType.of(messages.get(0).propertiesString()),
            result.appendResult().messageCount(), result.appendResult().wroteBytes());
        // a transform may have stored other records (a delayed message goes to SCHEDULE_TOPIC_XXXX): their ids
        List<BrokerMessage> stored = result.appendedMessages() != null ? result.appendedMessages() : messages;
        StringJoiner msgIds = new StringJoiner(",");
        for (BrokerMessage m : stored) {
            msgIds.add(m.offsetMsgId());
        }
        BrokerMessage first = messages.get(0);
        return new SendOutcome(code, storedRemark(status), msgIds.toString(), first.queueId(),
            result.appendResult().queueOffset(), stored.get(0).physicalOffset(),
            messages.size() == 1 ? first.uniqKey() : null);
    }

    /** RocketMQ's response code for a store status (SendMessageProcessor.handlePutMessageResult). */
    static int responseCode(PutMessageStatus status) {
        return switch (status) {
            case PUT_OK -> ResponseCode.SUCCESS;
            case FLUSH_DISK_TIMEOUT -> ResponseCode.FLUSH_DISK_TIMEOUT;
            case FLUSH_SLAVE_TIMEOUT -> ResponseCode.FLUSH_SLAVE_TIMEOUT;
            case SLAVE_NOT_AVAILABLE -> ResponseCode.SLAVE_NOT_AVAILABLE;
            case SERVICE_NOT_AVAILABLE -> ResponseCode.SERVICE_NOT_AVAILABLE;
            case MESSAGE_ILLEGAL, PROPERTIES_SIZE_EXCEEDED, WHEEL_TIMER_MSG_ILLEGAL -> ResponseCode.MESSAGE_ILLEGAL;
            case OS_PAGE_CACHE_BUSY -> ResponseCode.SYSTEM_BUSY;
            case CREATE_MAPPED_FILE_FAILED, UNKNOWN_ERROR, WHEEL_TIMER_FLOW_CONTROL, WHEEL_TIMER_NOT_ENABLE,
                IN_SYNC_REPLICAS_NOT_ENOUGH -> ResponseCode.SYSTEM_ERROR;
        };
    }

    private String refusalRemark(PutMessageStatus status) {
        return switch (status) {
            case SERVICE_NOT_AVAILABLE -> {
                String disk = store.diskFullReason();
                String dispatch = store.dispatchStoppedReason();
                yield "service not available now, message not stored"
                    + (disk != null && !disk.isEmpty() ? ": " + disk
                    : dispatch != null ? ": the store cannot index new messages (" + dispatch + ")"
                    : " (store not running or not writable)");
            }
            case MESSAGE_ILLEGAL -> "the message is illegal (too large, or its topic cannot be stored), not stored";
            case PROPERTIES_SIZE_EXCEEDED -> "the message properties exceed " + MAX_PROPERTIES_LENGTH + " bytes, not stored";
            case OS_PAGE_CACHE_BUSY -> "[PC_SYNCHRONIZED]broker busy, start flow control for a while; not stored";
            case CREATE_MAPPED_FILE_FAILED -> "create mapped file failed, server is busy or broken; not stored";
            // RocketMQ's remark; the SyncStateSet is smaller than minInSyncReplicas (controller mode)
            case IN_SYNC_REPLICAS_NOT_ENOUGH -> "in-sync replicas not enough";
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

    /**
     * A put waiting for its flush fails with a {@link StoreException} when the store fails stop (a failed
     * force, say): the message was written but is not durable, and the store is read-only. The producer
     * gets SERVICE_NOT_AVAILABLE, as later sends do; the store has logged the cause once, so this logs
     * nothing (every waiting send would otherwise add an ERROR line with a stack trace). Anything else
     * stays a processor failure.
     */
    static SendOutcome refusedAfterFailStop(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof StoreException) {
            return SendOutcome.refused(ResponseCode.SERVICE_NOT_AVAILABLE,
                "service not available now, message not durable: " + cause.getMessage());
        }
        throw error instanceof CompletionException c ? c : new CompletionException(error);
    }

    private static CompletableFuture<SendOutcome> done(int code, String remark) {
        return CompletableFuture.completedFuture(SendOutcome.refused(code, remark));
    }
}
