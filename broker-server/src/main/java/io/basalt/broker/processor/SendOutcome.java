package io.basalt.broker.processor;

import io.basalt.remoting.protocol.RemotingCommand;

/**
 * What a send came to, before it is written as a SEND_MESSAGE response: the response code and remark, and for a
 * stored send the ids and offsets the response header carries. The remoting path turns it into a response with
 * {@link #toResponse()}; the gRPC endpoint reads it as it is, with no response header written and parsed back.
 *
 * @param msgIds          the stored records' offset message ids, comma-separated; null when nothing was stored
 * @param queueOffset     the first message's queue offset; -1 when nothing was stored
 * @param commitLogOffset the CommitLog offset of the first record stored (a half message's in the half topic, a
 *                        delayed message's in SCHEDULE_TOPIC_XXXX); -1 when nothing was stored
 * @param transactionId   the message's UNIQ_KEY for a single message; null for a batch or when nothing was stored
 */
public record SendOutcome(int code, String remark, String msgIds, int queueId, long queueOffset, long commitLogOffset,
                          String transactionId) {
    /** RocketMQ's region and trace flag, answered on every stored send. */
    static final String REGION = "DefaultRegion";

    /** A send refused with nothing written. */
    public static SendOutcome refused(int code, String remark) {
        return new SendOutcome(code, remark, null, -1, -1, -1, null);
    }

    /** True when the message is in the CommitLog (SUCCESS, or a flush or replication shortfall). */
    public boolean stored() {
        return msgIds != null;
    }

    /** The SEND_MESSAGE response RocketMQ's clients read: the send header only for a stored send. */
    public RemotingCommand toResponse() {
        RemotingCommand response = RemotingCommand.response(code, remark);
        if (!stored()) {
            return response;
        }
        response.putExtField("msgId", msgIds);
        response.putExtField("queueId", Integer.toString(queueId));
        response.putExtField("queueOffset", Long.toString(queueOffset));
        if (transactionId != null) {
            response.putExtField("transactionId", transactionId);
        }
        response.putExtField("MSG_REGION", REGION);
        response.putExtField("TRACE_ON", "true");
        return response;
    }
}
