package io.basalt.broker.processor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;
import io.basalt.store.MessageStore;

/**
 * CONSUMER_SEND_MSG_BACK: a message the consumer could not process goes to a random one of the
 * {@code retryQueueNums} queues of its group's {@code %RETRY%<group>} topic with {@code reconsumeTimes + 1},
 * or to {@code %DLQ%<group>} once it was retried {@code maxReconsumeTimes} times (the client's value, else
 * the group's {@code retryMaxTimes}) or the client asks for it (delayLevel &lt; 0), with RocketMQ's
 * RETRY_TOPIC / ORIGIN_MESSAGE_ID properties. Basalt has no delay queues, so the retry is delivered
 * without RocketMQ's back-off delay. Safe for concurrent calls.
 */
public final class ConsumerSendMsgBackProcessor implements RequestProcessor {
    private final MessageStore store;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager subscriptionGroups;
    private final InetSocketAddress storeHost;
    private final BooleanSupplier writable;

    /**
     * @param storeHost this broker's address as the store host of the message sent back
     * @param writable  whether writes are accepted now: a running, unfenced master. A slave or a deposed
     *                  master refuses, so a client with a stale route resends through the master instead
     *                  of writing into a replica's log
     */
    public ConsumerSendMsgBackProcessor(MessageStore store, TopicConfigManager topics,
                                        SubscriptionGroupManager subscriptionGroups, InetSocketAddress storeHost,
                                        BooleanSupplier writable) {
        this.store = store;
        this.topics = topics;
        this.subscriptionGroups = subscriptionGroups;
        this.storeHost = storeHost;
        this.writable = writable;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) throws IOException {
        if (!writable.getAsBoolean()) {
            return done(ResponseCode.SERVICE_NOT_AVAILABLE, "the broker[" + storeHost.getHostString() + ":"
                + storeHost.getPort() + "] is not writable (a slave, or a master fenced by a newer one), "
                + "sending a message back is forbidden");
        }
        RequestFields f = new RequestFields(request);
        long offset;
        String group;
        int delayLevel;
        Optional<SubscriptionGroupConfig> groupConfig;
        int maxReconsumeTimes;
        try {
            offset = f.requireLong("offset");
            group = f.requireString("group");
            delayLevel = f.requireInt("delayLevel");
            groupConfig = subscriptionGroups.findOrAutoCreate(group);
            if (groupConfig.isEmpty()) {
                return done(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group not exist, " + group);
            }
            // the client's maxReconsumeTimes (sent since RocketMQ 3.4.9) wins over the group's retryMaxTimes
            maxReconsumeTimes = f.intValue("maxReconsumeTimes", groupConfig.get().retryMaxTimes());
        } catch (RequestFields.BadRequestException e) {
            return done(BrokerResponseCode.INVALID_PARAMETER, e.getMessage());
        }
        int retryQueueNums = groupConfig.get().retryQueueNums();
        StoredMessage original = store.lookMessageByOffset(offset);
        if (original == null) {
            return done(ResponseCode.SYSTEM_ERROR, "look message by offset failed, " + offset);
        }
        Map<String, String> properties = new LinkedHashMap<>(original.propertyMap());
        String originTopic = properties.getOrDefault("RETRY_TOPIC", original.topic());
        properties.putIfAbsent("RETRY_TOPIC", originTopic);
        properties.putIfAbsent("ORIGIN_MESSAGE_ID", f.string("originMsgId") != null ? f.string("originMsgId")
            : original.offsetMsgId());
        properties.remove("DELAY");
        int reconsumeTimes = original.reconsumeTimes();
        boolean toDlq = delayLevel < 0 || reconsumeTimes >= maxReconsumeTimes;
        String topic = toDlq ? TopicValidator.DLQ_GROUP_TOPIC_PREFIX + group : TopicValidator.retryTopic(group);
        TopicConfig config = topics.createIfAbsent(topic, toDlq ? 1 : retryQueueNums, Perm.READ | Perm.WRITE);
        if (!config.isWritable()) {
            return done(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] sending message is forbidden");
        }
        int queueId = toDlq ? 0 : ThreadLocalRandom.current().nextInt(Math.max(1, config.writeQueueNums()));
        BrokerMessage message = BrokerMessage.builder()
            .topic(topic).queueId(queueId).flag(original.flag()).body(original.body())
            .propertiesString(MessageProperties.toPropertiesString(properties))
            .bornTimestamp(original.bornTimestamp()).bornHost((InetSocketAddress) context.remoteAddress())
            .storeHost(storeHost).sysFlag(original.sysFlag()).reconsumeTimes(reconsumeTimes + 1)
            .build();
        return store.asyncPutMessage(message).thenApply(result -> result.status().isStored()
            ? RemotingCommand.response(ResponseCode.SUCCESS, null)
            : RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "sending the message back failed: " + result.status()));
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
