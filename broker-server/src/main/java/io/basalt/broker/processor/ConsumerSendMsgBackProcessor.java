package io.basalt.broker.processor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import io.basalt.broker.retry.RetryBudget;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.retry.RetryTopics;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.StoredMessage;

/**
 * CONSUMER_SEND_MSG_BACK, RocketMQ 5.2.0's {@code AbstractSendMessageProcessor.consumerSendMsgBack}: a message
 * a concurrent consumer could not process is read back from this broker's log and stored again for the group.
 *
 * <ul>
 *   <li>As a <b>retry</b> in a random one of the group's {@code retryQueueNums} queues of {@code %RETRY%<group>}
 *       (created on demand, perm 6, UNIT_SUB for a unit-mode consumer), with property {@code DELAY} = the client's
 *       level, or {@code 3 + reconsumeTimes} when it left the choice to the broker (level 0). The store's delay
 *       transform turns it into a SCHEDULE_TOPIC_XXXX record that comes back into the retry topic when due, so the
 *       whole back-off schedule follows {@code messageDelayLevel}.</li>
 *   <li>Into the <b>DLQ</b> {@code %DLQ%<group>} (1 queue, perm 6, queue 0, {@code DELAY=0}) once the message used
 *       up its retries ({@link RetryBudget}: the client's {@code maxReconsumeTimes} when the request's version is
 *       at least V3_4_9, else the group's {@code retryMaxTimes}), or at once when the client asks (level &lt; 0).</li>
 *   <li><b>Dropped</b> (SUCCESS, nothing stored, counted and logged once) when the group has no retry queues.</li>
 * </ul>
 *
 * The new record keeps the original's body, flag, sysFlag, born host and time, UNIQ_KEY, KEYS and TAGS; it gets
 * this broker as store host, reconsumeTimes + 1, {@code RETRY_TOPIC} (the first topic, set on the first hop
 * only), {@code WAIT=false}, {@code ORIGIN_MESSAGE_ID} (kept, else the original record's offsetMsgId) and loses
 * {@code TRAN_MSG}, so a retried transactional message is not taken for a half message again
 * (apache/rocketmq#1648). Safe for concurrent calls.
 */
public final class ConsumerSendMsgBackProcessor implements RequestProcessor {
    /** The request version from which the client's {@code maxReconsumeTimes} counts (RocketMQ's V3_4_9). */
    static final int MAX_RECONSUME_TIMES_SINCE_VERSION = 121;
    /** RocketMQ's TopicSysFlag.FLAG_UNIT_SUB. */
    static final int TOPIC_SYS_FLAG_UNIT_SUB = 0x2;
    static final String PROPERTY_RETRY_TOPIC = "RETRY_TOPIC";
    static final String PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID";
    static final String PROPERTY_TRANSACTION_PREPARED = "TRAN_MSG";

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager subscriptionGroups;
    private final InetSocketAddress storeHost;
    private final BooleanSupplier writable;
    private final RetryCounts counts;
    private final BiConsumer<String, String> sentBack;

    /**
     * @param storeHost this broker's address as the store host of the message sent back
     * @param writable  whether writes are accepted now: a running, unfenced master. A slave or a deposed
     *                  master refuses, so a client with a stale route resends through the master instead
     *                  of writing into a replica's log
     * @param counts    where retries, dead letters and drops are counted per group
     */
    public ConsumerSendMsgBackProcessor(MessageStore store, TopicConfigManager topics,
                                        SubscriptionGroupManager subscriptionGroups, InetSocketAddress storeHost,
                                        BooleanSupplier writable, RetryCounts counts) {
        this(store, topics, subscriptionGroups, storeHost, writable, counts, (topic, group) -> { });
    }

    /**
     * @param sentBack told (first topic, group) of every message stored back: RocketMQ's {@code SNDBCK_PUT_NUMS}
     */
    public ConsumerSendMsgBackProcessor(MessageStore store, TopicConfigManager topics,
                                        SubscriptionGroupManager subscriptionGroups, InetSocketAddress storeHost,
                                        BooleanSupplier writable, RetryCounts counts,
                                        BiConsumer<String, String> sentBack) {
        this.sentBack = sentBack;
        this.store = store;
        this.topics = topics;
        this.subscriptionGroups = subscriptionGroups;
        this.storeHost = storeHost;
        this.writable = writable;
        this.counts = counts;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) throws IOException {
        // Checked before the group (RocketMQ checks it after): a replica must not auto-create groups either.
        // NO_PERMISSION as RocketMQ answers; the official client treats every non-SUCCESS answer alike (it
        // resends the message as a normal send to %RETRY%<group>, which the route sends to the master).
        if (!writable.getAsBoolean()) {
            return done(ResponseCode.NO_PERMISSION, "the broker[" + storeHost.getHostString() + ":"
                + storeHost.getPort() + "] sending message is forbidden (not writable: a slave, or a master fenced by"
                + " a newer one)");
        }
        if (!topics.brokerPermission().writable()) {
            return done(ResponseCode.NO_PERMISSION, topics.brokerPermission().forbidden("sending"));
        }
        RequestFields f = new RequestFields(request);
        long offset;
        String group;
        int delayLevel;
        boolean unitMode;
        Optional<SubscriptionGroupConfig> groupConfig;
        int maxReconsumeTimes;
        try {
            offset = f.requireLong("offset");
            group = f.requireString("group");
            delayLevel = f.requireInt("delayLevel");
            unitMode = f.bool("unitMode", false);
            groupConfig = subscriptionGroups.findOrAutoCreate(group);
            if (groupConfig.isEmpty()) {
                return done(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group not exist, " + group
                    + " (autoCreateSubscriptionGroup is off, or the name is not a valid group)");
            }
            maxReconsumeTimes = request.version() >= MAX_RECONSUME_TIMES_SINCE_VERSION
                ? f.intValue("maxReconsumeTimes", groupConfig.get().retryMaxTimes())
                : groupConfig.get().retryMaxTimes();
        } catch (RequestFields.BadRequestException e) {
            return done(BrokerResponseCode.INVALID_PARAMETER, e.getMessage());
        }
        int retryQueueNums = groupConfig.get().retryQueueNums();
        if (retryQueueNums <= 0) {
            counts.dropped(group, retryQueueNums);
            return done(ResponseCode.SUCCESS, null);
        }
        String retryTopic = RetryTopics.retryTopic(group);
        TopicConfig retryConfig = topics.createIfAbsent(retryTopic, retryQueueNums, Perm.READ | Perm.WRITE,
            unitMode ? TOPIC_SYS_FLAG_UNIT_SUB : 0);
        if (!retryConfig.isWritable()) {
            return done(ResponseCode.NO_PERMISSION, "the topic[" + retryTopic + "] sending message is forbidden");
        }
        StoredMessage original = store.lookMessageByOffset(offset);
        if (original == null) {
            return done(ResponseCode.SYSTEM_ERROR, "look message by offset failed, " + offset);
        }
        Map<String, String> properties = new LinkedHashMap<>(original.propertyMap());
        properties.putIfAbsent(PROPERTY_RETRY_TOPIC, original.topic());
        properties.put(MessageProperties.WAIT_STORE_MSG_OK, "false");
        properties.remove(PROPERTY_TRANSACTION_PREPARED);
        String originMessageId = properties.get(PROPERTY_ORIGIN_MESSAGE_ID);
        if (originMessageId == null || originMessageId.isBlank()) {
            properties.put(PROPERTY_ORIGIN_MESSAGE_ID, original.offsetMsgId());
        }
        int reconsumeTimes = original.reconsumeTimes();
        boolean toDlq = delayLevel < 0 || RetryBudget.exhausted(reconsumeTimes + 1, maxReconsumeTimes);
        String topic;
        int queueId;
        if (toDlq) {
            topic = RetryTopics.dlqTopic(group);
            TopicConfig dlq = topics.createIfAbsent(topic, RetryTopics.DLQ_QUEUE_NUMS, Perm.READ | Perm.WRITE);
            if (!dlq.isWritable()) {
                return done(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] sending message is forbidden");
            }
            queueId = 0;
            properties.put(MessageProperties.DELAY_TIME_LEVEL, "0");
        } else {
            topic = retryTopic;
            queueId = ThreadLocalRandom.current().nextInt(Math.max(1, retryConfig.writeQueueNums()));
            properties.put(MessageProperties.DELAY_TIME_LEVEL,
                Integer.toString(delayLevel == 0 ? 3 + reconsumeTimes : delayLevel));
        }
        BrokerMessage message = BrokerMessage.builder()
            .topic(topic).queueId(queueId).flag(original.flag()).body(original.body())
            .propertiesString(MessageProperties.toPropertiesString(properties))
            .bornTimestamp(original.bornTimestamp()).bornHost(original.bornHost())
            .storeHost(storeHost).sysFlag(original.sysFlag()).reconsumeTimes(reconsumeTimes + 1)
            .build();
        String originTopic = properties.get(PROPERTY_RETRY_TOPIC);
        return store.asyncPutMessage(message)
            .thenApply(result -> answer(result, message, group, originTopic, toDlq))
            .exceptionally(failure -> SendMessageProcessor.refusedAfterFailStop(failure).toResponse());
    }

    /**
     * SUCCESS once stored (a FLUSH_*_TIMEOUT included: the record exists, and a failure answer would make the
     * client store a second copy); else SYSTEM_ERROR naming the store's status, as RocketMQ answers.
     */
    private RemotingCommand answer(PutMessageResult result, BrokerMessage message, String group, String originTopic,
                                   boolean toDlq) {
        if (!result.status().isStored()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, result.reason() == null
                ? result.status().name() : result.status().name() + ": " + result.reason());
        }
        sentBack.accept(originTopic != null ? originTopic : message.topic(), group);
        if (toDlq) {
            counts.deadLettered(group, message.topic(), originTopic, message.uniqKey(), message.reconsumeTimes(),
                message.storeTimestamp());
        } else {
            counts.retried(group);
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
