package io.basalt.broker.pop;

import io.basalt.broker.retry.RetryTopics;

/**
 * The POP retry topics of a (group, topic): v1 {@code %RETRY%<group>_<topic>} (RocketMQ 5.2.0's default) and v2
 * {@code %RETRY%<group>+<topic>}. Distinct from the classic {@code %RETRY%<group>}. Stateless.
 */
public final class PopRetryTopics {
    private PopRetryTopics() {
    }

    public static String v1(String group, String topic) {
        return RetryTopics.RETRY_PREFIX + group + "_" + topic;
    }

    public static String v2(String group, String topic) {
        return RetryTopics.RETRY_PREFIX + group + "+" + topic;
    }
}
