package io.basalt.broker.topic;

import java.util.Set;

/** RocketMQ's topic name rules ({@code TopicValidator}): what a client may send to and what is reserved. */
public final class TopicValidator {
    public static final String AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102";
    public static final int TOPIC_MAX_LENGTH = 127;
    public static final String RETRY_GROUP_TOPIC_PREFIX = "%RETRY%";
    public static final String DLQ_GROUP_TOPIC_PREFIX = "%DLQ%";
    /** RocketMQ's prefix of the topics only a broker writes ({@code TopicValidator.SYSTEM_TOPIC_PREFIX}). */
    public static final String SYSTEM_TOPIC_PREFIX = "rmq_sys_";
    /**
     * System topics a producer may not send to: RocketMQ 5.2.0's NOT_ALLOWED_SEND_TOPIC_SET (which its client
     * checks too). Every {@value #SYSTEM_TOPIC_PREFIX} topic is refused as well (see {@link #isNotAllowedSendTopic}).
     */
    private static final Set<String> NOT_ALLOWED_SEND = Set.of(
        "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT");

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

    /**
     * True for reserved system topics that producers may not send to: RocketMQ's set, and every
     * {@value #SYSTEM_TOPIC_PREFIX} topic ({@code rmq_sys_wheel_timer}, {@code rmq_sys_REVIVE_LOG_*},
     * {@code rmq_sys_SYNC_BROKER_MEMBER_*}). RocketMQ 5.2.0 lets a client write {@code rmq_sys_wheel_timer}, and a
     * record there without {@code TIMER_OUT_MS} makes its timer enqueue retry that record forever (reference §2.1);
     * the broker fills these topics itself, through the store, never through a send. The trace topic
     * {@code RMQ_SYS_TRACE_TOPIC} is written by clients and stays open.
     */
    public static boolean isNotAllowedSendTopic(String topic) {
        return NOT_ALLOWED_SEND.contains(topic) || topic.startsWith(SYSTEM_TOPIC_PREFIX);
    }

    public static String retryTopic(String group) {
        return RETRY_GROUP_TOPIC_PREFIX + group;
    }
}
