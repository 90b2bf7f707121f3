package io.basalt.broker.transaction;

/**
 * The half messages pending per real topic ({@code config/transactionMetrics}, gauge {@code rocketmq_half_messages}),
 * as the back-check changes them: a half message given up into {@code TRANS_CHECK_MAX_TIME_TOPIC} is no longer
 * pending. Called on the check scan's thread; must not block.
 */
@FunctionalInterface
public interface PendingHalfMessages {

    /** One half message of {@code realTopic} left the pending count. */
    void removed(String realTopic);
}
