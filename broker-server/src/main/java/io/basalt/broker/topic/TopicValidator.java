package io.basalt.broker.topic;

import java.util.Set;

/** RocketMQ's topic name rules ({@code TopicValidator}): what a client may send to and what is reserved. */
public final class TopicValidator {
    public static final String AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102";
    public static final int TOPIC_MAX_LENGTH = 127;
    public static final String RETRY_GROUP_TOPIC_PREFIX = "%RETRY%";
    public static final String DLQ_GROUP_TOPIC_PREFIX = "%DLQ%";
    /**
     * System topics a producer may not send to: RocketMQ 5.2.0's NOT_ALLOWED_SEND_TOPIC_SET (which its client
     * checks too), plus the timer and revive topics, whose features Basalt does not implement.
     */
    private static final Set<String> NOT_ALLOWED_SEND = Set.of(
        "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "rmq_sys_wheel_timer",
        "rmq_sys_REVIVE_LOG_");

    private TopicValidator() {
    }

    /** Why the name is not a valid topic name, or null when it is. */
    public static String invalidReason(String topic) {
        return invalidName("topic", topic, TOPIC_MAX_LENGTH);
    }

    /**
     * RocketMQ's rule for topic and group names ({@code isTopicOrGroupIllegal}): not blank, at most
     * {@code maxLength} characters of {@code [%|a-zA-Z0-9_-]}. Why {@code name} breaks it, or null.
     *
     * @param kind "topic" or "group", as the reason names it
     */
    public static String invalidName(String kind, String name, int maxLength) {
        if (name == null || name.isBlank()) {
            return "the specified " + kind + " is blank.";
        }
        if (name.length() > maxLength) {
            return "the specified " + kind + " is longer than " + kind + " max length " + maxLength + ".";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c == '%' || c == '|' || c == '_' || c == '-' || (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!ok) {
                return "the specified " + kind + "[" + name + "] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$";
            }
        }
        return null;
    }

    /** True for reserved system topics that producers may not send to. */
    public static boolean isNotAllowedSendTopic(String topic) {
        return NOT_ALLOWED_SEND.contains(topic) || topic.startsWith("rmq_sys_REVIVE_LOG_");
    }

    public static String retryTopic(String group) {
        return RETRY_GROUP_TOPIC_PREFIX + group;
    }
}
