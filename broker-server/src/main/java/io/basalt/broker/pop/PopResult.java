package io.basalt.broker.pop;

import java.util.List;

import io.basalt.remoting.protocol.ResponseCode;

/**
 * The answer to a pop: SUCCESS with messages, POLLING_TIMEOUT (nothing to pop within the poll time), POLLING_FULL,
 * or a refusal ({@link #outcome()} says which).
 *
 * @param messages        the stored records to send, back to back; retry-topic records re-encoded with the
 *                        original topic and {@code POP_CK}
 * @param handles         one receipt per message, in the same order (with the CommitLog offset, for gRPC)
 * @param startOffsetInfo RocketMQ's {@code startOffsetInfo} header ({@code "<retryFlag> <queueId> <start>"};...)
 * @param msgOffsetInfo   RocketMQ's {@code msgOffsetInfo} header ({@code "<retryFlag> <queueId> <o1>,<o2>"};...)
 * @param orderCountInfo  order POP: RocketMQ's {@code orderCountInfo} header ({@code "<retryFlag> qo<queueId>%<offset>
 *                        <count>"} per message, then {@code "<retryFlag> <queueId> <minCount>"} per queue), the
 *                        earlier deliveries the client reports as {@code reconsumeTimes}; empty otherwise
 */
public record PopResult(PopOutcome outcome, long popTime, long invisibleTime, int reviveQid, long restNum,
                        List<byte[]> messages, List<PopHandle> handles, String startOffsetInfo, String msgOffsetInfo,
                        String orderCountInfo) {

    public PopResult(PopOutcome outcome, long popTime, long invisibleTime, int reviveQid, long restNum,
                     List<byte[]> messages, List<PopHandle> handles, String startOffsetInfo, String msgOffsetInfo) {
        this(outcome, popTime, invisibleTime, reviveQid, restNum, messages, handles, startOffsetInfo, msgOffsetInfo, "");
    }

    public static PopResult refused(int code, String remark) {
        return new PopResult(new PopOutcome(code, remark), 0, 0, 0, 0, List.of(), List.of(), "", "");
    }

    public boolean found() {
        return outcome.code() == ResponseCode.SUCCESS && !messages.isEmpty();
    }

    /** The same pop with no message: POLLING_TIMEOUT, RocketMQ's "nothing to pop". */
    PopResult nothing() {
        return new PopResult(new PopOutcome(ResponseCode.POLLING_TIMEOUT, "NO_MESSAGE_IN_QUEUE"), popTime,
            invisibleTime, reviveQid, restNum, List.of(), List.of(), "", "", "");
    }
}
