package io.basalt.broker.retry;

/**
 * Names of a consumer group's retry and dead-letter topics, RocketMQ's {@code MixAll} and
 * {@code KeyBuilder}: {@code %RETRY%<group>}, pop V2's {@code %RETRY%<group>+<topic>}, {@code %DLQ%<group>}.
 * Stateless.
 */
public final class RetryTopics {
    public static final String RETRY_PREFIX = "%RETRY%";
    public static final String DLQ_PREFIX = "%DLQ%";
    /** Queues of a {@code %DLQ%} topic (RocketMQ's DLQ_NUMS_PER_GROUP). */
    public static final int DLQ_QUEUE_NUMS = 1;
    /** Separator of pop V2 retry topics, {@code %RETRY%group+topic} (RocketMQ's POP_RETRY_SEPARATOR_V2). */
    static final char POP_V2_SEPARATOR = '+';

    private RetryTopics() {
    }

    public static boolean isRetryTopic(String topic) {
        return topic != null && topic.startsWith(RETRY_PREFIX);
    }

    /**
     * The group a retry topic belongs to: the text after {@code %RETRY%}, up to a {@code '+'} (pop V2 retry
     * topics name the group and then the topic; group names cannot contain {@code '+'}).
     *
     * @throws IllegalArgumentException if {@code retryTopic} is not a retry topic
     */
    public static String groupOf(String retryTopic) {
        if (!isRetryTopic(retryTopic)) {
            throw new IllegalArgumentException("not a retry topic: " + retryTopic);
        }
        String rest = retryTopic.substring(RETRY_PREFIX.length());
        int plus = rest.indexOf(POP_V2_SEPARATOR);
        return plus < 0 ? rest : rest.substring(0, plus);
    }

    public static String retryTopic(String group) {
        return RETRY_PREFIX + group;
    }

    public static String dlqTopic(String group) {
        return DLQ_PREFIX + group;
    }
}
