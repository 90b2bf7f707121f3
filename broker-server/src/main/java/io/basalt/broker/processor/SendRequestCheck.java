package io.basalt.broker.processor;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.MessageProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a producer's message must pass before the broker stores it, shared by sends
 * ({@link SendMessageProcessor}) and replies ({@link ReplyMessageProcessor}): the broker accepts writes,
 * the topic name is valid and not reserved (no {@code rmq_sys_*} topic), a transactional half message carries no
 * delay, the topic exists or may be auto-created from its template and
 * is writable, the queue id exists, the body and properties fit. Each refusal carries RocketMQ's code and a
 * remark saying what is wrong; an accepted message gets its topic and the queue it goes to (a random
 * writable one when the producer asked for none). Safe for concurrent calls.
 */
final class SendRequestCheck {
    private static final Logger log = LoggerFactory.getLogger(SendRequestCheck.class);
    static final int MAX_PROPERTIES_LENGTH = Short.MAX_VALUE;
    /** Every bit RocketMQ 5.2.0's MessageSysFlag defines (0x1 .. 0x80 and the compression type, 0x700). */
    static final int DEFINED_SYS_FLAG_BITS = 0x7FF;
    /** TIMER_DELIVER_MS, TIMER_DELAY_SEC, TIMER_DELAY_MS, TIMER_DEL_UNIQKEY, TIMER_OUT_MS and the wheel's own. */
    static final String TIMER_PROPERTY_PREFIX = "TIMER_";

    /** The outcome of {@link #check}. */
    sealed interface Verdict permits Accepted, Refused {
    }

    /** The message may be stored in {@code queueId} of {@code topic}. */
    record Accepted(TopicConfig topic, int queueId) implements Verdict {
    }

    /** The message is refused; nothing was written. */
    record Refused(int code, String remark) implements Verdict {
        RemotingCommand response() {
            return RemotingCommand.response(code, remark);
        }
    }

    private final StoreHost host;
    private final BooleanSupplier writable;
    private final int maxMessageSize;
    private final TopicConfigManager topics;

    /**
     * @param writable       whether producers' writes are accepted now: a running, unfenced master (a slave or
     *                       a deposed master refuses)
     * @param maxMessageSize largest body accepted, bytes
     */
    SendRequestCheck(StoreHost host, BooleanSupplier writable, int maxMessageSize, TopicConfigManager topics) {
        this.host = host;
        this.writable = writable;
        this.maxMessageSize = maxMessageSize;
        this.topics = topics;
    }

    /**
     * Checks one send (or, with {@code batch}, one SEND_BATCH_MESSAGE, whose topic errors are MESSAGE_ILLEGAL
     * as in RocketMQ and whose body is checked message by message later) from {@code producer}.
     */
    Verdict check(SendMessageRequestHeader header, byte[] body, SocketAddress producer, boolean batch) {
        String topic = header.getTopic();
        if (!writable.getAsBoolean()) {
            return new Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "the broker[" + host.brokerName()
                + "] is not writable (a slave, or a master fenced by a newer one), sending message is forbidden");
        }
        String invalid = TopicValidator.invalidReason(topic);
        if (invalid != null) {
            return new Refused(batch ? ResponseCode.MESSAGE_ILLEGAL : BrokerResponseCode.INVALID_PARAMETER, invalid);
        }
        if (TopicValidator.isNotAllowedSendTopic(topic)) {
            return new Refused(ResponseCode.NO_PERMISSION, "Sending message to topic[" + topic + "] is forbidden.");
        }
        String illegal = illegalValue(header);
        if (illegal != null) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, illegal + ", producer: " + producer);
        }
        String delayedHalf = delayedHalfMessageProperty(header);
        if (delayedHalf != null) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, "a transactional half message cannot be delayed: it carries "
                + delayedHalf + "; send it without a delay level or timer property, or send a delayed plain message once"
                + " the transaction is committed");
        }
        if (batch && topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, "batch request does not support retry group " + topic);
        }
        if (topics.get(topic) == null && !topic.startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)
            && !topics.creationLimiter().tryAcquire(producer)) {
            // TOPIC_NOT_EXIST: the official producer retries it on another broker, then gives up with this remark
            return new Refused(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist and not created: this"
                + " client auto-created more than autoCreateTopicPerClientPerSecond="
                + topics.creationLimiter().perSecond() + " topics in the last second; create it first or retry later");
        }
        TopicConfig config;
        try {
            config = topicFor(header, producer);
        } catch (IOException e) {
            log.error("cannot persist the auto-created topic {}", topic, e);
            return new Refused(ResponseCode.SYSTEM_ERROR, "cannot create topic " + topic + ": " + e.getMessage());
        }
        if (config == null) {
            return new Refused(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist, apply first please!"
                + " (autoCreateTopicEnable is off, or the default topic " + header.getDefaultTopic()
                + " does not exist or cannot be inherited)");
        }
        if ((config.perm() & Perm.WRITE) == 0) {
            return new Refused(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] sending message is forbidden");
        }
        if (config.order() && !topics.brokerPermission().writable()) {
            // RocketMQ's rule: without WRITE only order topics are refused; routes already steer other sends away
            return new Refused(ResponseCode.NO_PERMISSION, topics.brokerPermission().forbidden("sending"));
        }
        int queueId = header.getQueueId() == null ? -1 : header.getQueueId();
        int queueNums = config.queueNums();
        if (queueId >= queueNums) {
            return new Refused(BrokerResponseCode.INVALID_PARAMETER, "request queueId[" + queueId + "] is illegal, topic "
                + topic + " has " + queueNums + " queues (0.." + (queueNums - 1) + "), producer: " + producer);
        }
        if (queueId < 0) {
            queueId = ThreadLocalRandom.current().nextInt(Math.max(1, config.writeQueueNums()));
        }
        int bodyLength = body == null ? 0 : body.length;
        if (bodyLength > maxMessageSize) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, "the message body size " + bodyLength
                + " bytes exceeds maxMessageSize " + maxMessageSize + " bytes");
        }
        if (!batch && bodyLength == 0) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, "the message body is empty");
        }
        String properties = header.getProperties() == null ? "" : header.getProperties();
        if (properties.getBytes(StandardCharsets.UTF_8).length > MAX_PROPERTIES_LENGTH) {
            return new Refused(ResponseCode.MESSAGE_ILLEGAL, "the message properties length exceeds "
                + MAX_PROPERTIES_LENGTH + " bytes");
        }
        return new Accepted(config, queueId);
    }

    /**
     * The header values no RocketMQ producer sends, checked before anything (a topic included) is created:
     * sysFlag bits RocketMQ does not define, a negative bornTimestamp or reconsumeTimes, a queueId below -1
     * (-1 and other negatives mean "any queue" to old clients; Integer.MIN_VALUE-like values are garbage).
     *
     * @return what is wrong, or null
     */
    static String illegalValue(SendMessageRequestHeader header) {
        int sysFlag = header.getSysFlag() == null ? 0 : header.getSysFlag();
        if ((sysFlag & ~DEFINED_SYS_FLAG_BITS) != 0) {
            return "sysFlag 0x" + Integer.toHexString(sysFlag) + " has bits RocketMQ does not define (0x"
                + Integer.toHexString(sysFlag & ~DEFINED_SYS_FLAG_BITS) + "; defined: 0x"
                + Integer.toHexString(DEFINED_SYS_FLAG_BITS) + ")";
        }
        if (header.getBornTimestamp() != null && header.getBornTimestamp() < 0) {
            return "bornTimestamp " + header.getBornTimestamp() + " is negative";
        }
        if (header.getReconsumeTimes() != null && header.getReconsumeTimes() < 0) {
            return "reconsumeTimes " + header.getReconsumeTimes() + " is negative";
        }
        if (header.getQueueId() != null && header.getQueueId() < -1) {
            return "queueId " + header.getQueueId() + " is negative (-1 or absent lets the broker choose)";
        }
        return null;
    }

    /**
     * The delay property of a transactional half message (sysFlag PREPARED), or null: {@code DELAY} above 0 or any
     * {@code TIMER_*} property. RocketMQ 5.2.0 stores such a message and its delay re-puts bounce it between the
     * delay topics and the half topic until the transaction checks run out (apache/rocketmq#1540; reference §6 #9).
     * A send that is not a half message, or whose properties hold neither name, is not parsed.
     */
    static String delayedHalfMessageProperty(SendMessageRequestHeader header) {
        int sysFlag = header.getSysFlag() == null ? 0 : header.getSysFlag();
        String properties = header.getProperties();
        if (TransactionalMessages.transactionType(sysFlag) != TransactionalMessages.TRANSACTION_PREPARED_TYPE
            || properties == null
            || (!properties.contains(TIMER_PROPERTY_PREFIX) && !properties.contains(MessageProperties.DELAY_TIME_LEVEL))) {
            return null;
        }
        Map<String, String> parsed = MessageProperties.parse(properties);
        if (isRetryOfOldClient(header, parsed)) {
            return null;
        }
        for (Map.Entry<String, String> property : parsed.entrySet()) {
            String name = property.getKey();
            if (name.startsWith(TIMER_PROPERTY_PREFIX)) {
                return name + "=" + property.getValue();
            }
            if (name.equals(MessageProperties.DELAY_TIME_LEVEL) && delayLevelAboveZero(property.getValue())) {
                return name + "=" + property.getValue();
            }
        }
        return null;
    }

    /**
     * Whether RocketMQ takes this send for a transactional half message: {@code TRAN_MSG=true}, except a message with
     * {@code reconsumeTimes > 0} and {@code DELAY > 0} (a retry a consumer older than 4.6.1 sent back with the
     * property still set). Only properties naming TRAN_MSG are parsed.
     */
    static boolean isHalfMessage(SendMessageRequestHeader header) {
        String properties = header.getProperties();
        if (properties == null || !properties.contains(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED)) {
            return false;
        }
        Map<String, String> parsed = MessageProperties.parse(properties);
        return Boolean.parseBoolean(parsed.get(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED))
            && !isRetryOfOldClient(header, parsed);
    }

    /** RocketMQ's exception to the half path: {@code reconsumeTimes > 0 && DELAY > 0}. */
    private static boolean isRetryOfOldClient(SendMessageRequestHeader header, Map<String, String> properties) {
        if (header.getReconsumeTimes() == null || header.getReconsumeTimes() <= 0) {
            return false;
        }
        String delay = properties.get(MessageProperties.DELAY_TIME_LEVEL);
        try {
            return delay != null && Integer.parseInt(delay) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** RocketMQ reads DELAY with Integer.parseInt; a value that is not a number cannot be dropped silently either. */
    private static boolean delayLevelAboveZero(String value) {
        try {
            return Integer.parseInt(value.trim()) > 0;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private TopicConfig topicFor(SendMessageRequestHeader header, SocketAddress producer) throws IOException {
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
            String.valueOf(producer), clientQueueNums, 0);
        return created.orElse(null);
    }
}
