package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Status;
import io.basalt.broker.topic.TopicAttributes;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicValidator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The checks of a SendMessage request, in RocketMQ's order (§2.6.3 of the protocol notes), each failing with its own
 * code and a message saying what to change. Pure: the caller supplies the topic's configuration.
 */
final class SendMessageChecks {
    static final int MAX_USER_PROPERTIES = 128;
    static final int MAX_USER_PROPERTY_BYTES = 16 * 1024;
    static final int MAX_MESSAGE_GROUP_BYTES = 64;
    static final long MAX_DELAY_MILLIS = 24L * 3600 * 1000;
    static final long MAX_ORPHAN_RECOVERY_SECONDS = 3600;

    private SendMessageChecks() {
    }

    /** The checks that concern the request as a whole; null when it passes them. */
    static Status checkRequest(List<Message> messages) {
        if (messages.isEmpty()) {
            return GrpcCodes.status(Code.MESSAGE_CORRUPTED, "no message to send");
        }
        String topic = messages.get(0).getTopic().getName();
        Status topicStatus = checkTopicName(topic);
        if (topicStatus != null) {
            return topicStatus;
        }
        for (Message m : messages) {
            if (!m.getTopic().getName().equals(topic)) {
                return GrpcCodes.status(Code.MESSAGE_CORRUPTED, "the messages of one SendMessage request must have"
                    + " one topic: " + topic + " and " + m.getTopic().getName());
            }
        }
        return null;
    }

    /** ILLEGAL_TOPIC for a malformed name or a topic clients may not send to; null when the name is fine. */
    static Status checkTopicName(String topic) {
        String invalid = TopicValidator.invalidReason(topic);
        if (invalid != null) {
            return GrpcCodes.status(Code.ILLEGAL_TOPIC, "topic '" + topic + "' is illegal: " + invalid);
        }
        if (TopicValidator.isNotAllowedSendTopic(topic) || topic.startsWith(TopicValidator.SYSTEM_TOPIC_PREFIX)) {
            return GrpcCodes.status(Code.ILLEGAL_TOPIC, "topic '" + topic + "' is a system topic");
        }
        return null;
    }

    /** The checks of one message against the limits and its topic; null when it passes. */
    static Status checkMessage(Message m, TopicConfig topic, int maxBodySize, long nowMillis) {
        if (m.getBody().size() > maxBodySize) {
            return GrpcCodes.status(Code.MESSAGE_BODY_TOO_LARGE, "message body of " + m.getBody().size()
                + " bytes is larger than maxMessageSize " + maxBodySize);
        }
        Map<String, String> user = m.getUserPropertiesMap();
        if (user.size() > MAX_USER_PROPERTIES) {
            return GrpcCodes.status(Code.MESSAGE_PROPERTIES_TOO_LARGE, "a message may have at most "
                + MAX_USER_PROPERTIES + " user properties, this one has " + user.size());
        }
        int propertyBytes = 0;
        for (Map.Entry<String, String> e : user.entrySet()) {
            propertyBytes += utf8(e.getKey()) + utf8(e.getValue());
            if (SystemPropertyNames.NAMES.contains(e.getKey())) {
                return GrpcCodes.status(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, "property key '" + e.getKey()
                    + "' is reserved by RocketMQ");
            }
            if (hasControlCharacter(e.getKey())) {
                return GrpcCodes.status(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, "property key '" + e.getKey()
                    + "' contains a control character");
            }
        }
        var system = m.getSystemProperties();
        if (system.hasTag()) {
            String tag = system.getTag();
            if (tag.isBlank() || tag.contains("|") || hasControlCharacter(tag)) {
                return GrpcCodes.status(Code.ILLEGAL_MESSAGE_TAG, "tag '" + tag + "' is blank or contains '|' or a"
                    + " control character");
            }
            propertyBytes += utf8(tag);
        }
        for (String key : system.getKeysList()) {
            if (key.isBlank() || hasControlCharacter(key)) {
                return GrpcCodes.status(Code.ILLEGAL_MESSAGE_KEY, "message key '" + key + "' is blank or contains a"
                    + " control character");
            }
            propertyBytes += utf8(key);
        }
        if (propertyBytes > MAX_USER_PROPERTY_BYTES) {
            return GrpcCodes.status(Code.MESSAGE_PROPERTIES_TOO_LARGE, "user properties, tag and keys take "
                + propertyBytes + " bytes, more than " + MAX_USER_PROPERTY_BYTES);
        }
        if (system.getMessageId().isEmpty()) {
            return GrpcCodes.status(Code.ILLEGAL_MESSAGE_ID, "the message has no message_id");
        }
        if (system.hasMessageGroup()) {
            String group = system.getMessageGroup();
            if (group.isBlank() || utf8(group) >= MAX_MESSAGE_GROUP_BYTES || hasControlCharacter(group)) {
                return GrpcCodes.status(Code.ILLEGAL_MESSAGE_GROUP, "message group '" + group + "' is blank, has "
                    + MAX_MESSAGE_GROUP_BYTES + " bytes or more, or contains a control character");
            }
        }
        if (system.hasDeliveryTimestamp()) {
            long deliverAt = millis(system.getDeliveryTimestamp());
            if (deliverAt - nowMillis > MAX_DELAY_MILLIS) {
                return GrpcCodes.status(Code.ILLEGAL_DELIVERY_TIME, "the delivery time is more than "
                    + MAX_DELAY_MILLIS / 3_600_000 + " h ahead");
            }
        }
        if (system.hasOrphanedTransactionRecoveryDuration()
            && system.getOrphanedTransactionRecoveryDuration().getSeconds() > MAX_ORPHAN_RECOVERY_SECONDS) {
            return GrpcCodes.status(Code.BAD_REQUEST, "orphaned_transaction_recovery_duration is longer than "
                + MAX_ORPHAN_RECOVERY_SECONDS + " s");
        }
        return checkMessageType(system.getMessageType(), topic);
    }

    /**
     * MESSAGE_PROPERTY_CONFLICT_WITH_TYPE when the topic's {@code message.type} attribute (NORMAL when absent) does
     * not take messages of this type; the message names the mqadmin change that makes it accept them.
     */
    static Status checkMessageType(MessageType type, TopicConfig topic) {
        if (topic.topicName().startsWith(TopicValidator.RETRY_GROUP_TOPIC_PREFIX)
            || topic.topicName().startsWith(TopicValidator.DLQ_GROUP_TOPIC_PREFIX)) {
            return null;
        }
        String topicType = topicMessageType(topic);
        if (topicType.equals("MIXED") || topicType.equals(type.name())) {
            return null;
        }
        return GrpcCodes.status(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "TopicMessageType validate failed, the"
            + " expected type is " + topicType + ", but actual type is " + type.name() + " (mqadmin updateTopic -t "
            + topic.topicName() + " -a +message.type=" + type.name() + ", or MIXED)");
    }

    /** The topic's {@code message.type} attribute, upper case; NORMAL when it has none (RocketMQ's default). */
    static String topicMessageType(TopicConfig topic) {
        String value = topic.attributes().get(TopicAttributes.MESSAGE_TYPE);
        if (value == null || value.isBlank() || value.equalsIgnoreCase("UNSPECIFIED")) {
            return "NORMAL";
        }
        return value.trim().toUpperCase(java.util.Locale.ROOT);
    }

    static long millis(com.google.protobuf.Timestamp t) {
        return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static boolean hasControlCharacter(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }
}
