package io.basalt.broker.pop;

/**
 * One POP_MESSAGE as the service takes it, whatever the protocol (remoting header or gRPC ReceiveMessage).
 *
 * @param queueId        -1 for every read queue of the topic, else that queue
 * @param invisibleTime  ms the popped messages stay invisible
 * @param pollTime       ms the pop may wait for a message (0: answer at once); counted on the broker's clock
 * @param initMode       start of a group without offset: {@link #INIT_MODE_MIN} or {@link #INIT_MODE_MAX}
 * @param expressionType TAG (or null) or SQL92
 * @param expression     the subscription; null or empty is {@code *}
 * @param attemptId      order POP: the client's attempt (a retry of a receive whose answer was lost carries the same
 *                       one and gets the same messages again); null when absent
 */
public record PopRequest(String group, String topic, int queueId, int maxMsgNums, long invisibleTime, long pollTime,
                         int initMode, String expressionType, String expression, boolean order, String attemptId) {
    public static final int INIT_MODE_MIN = 0;
    public static final int INIT_MODE_MAX = 1;
    /** RocketMQ's limit of messages in one pop. */
    public static final int MAX_MSG_NUMS = 32;

    /** A request without attempt id. */
    public PopRequest(String group, String topic, int queueId, int maxMsgNums, long invisibleTime, long pollTime,
                      int initMode, String expressionType, String expression, boolean order) {
        this(group, topic, queueId, maxMsgNums, invisibleTime, pollTime, initMode, expressionType, expression, order,
            null);
    }
}
