package io.basalt.broker.transaction;

import java.util.Map;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

/**
 * CHECK_TRANSACTION_STATE (39), broker → producer, one-way, as RocketMQ 5.2.0's {@code Broker2Client} sends it. The
 * check copy appended to the half queue is the check's identity: {@code tranStateTableOffset} = its queue offset,
 * {@code commitLogOffset} = its CommitLog offset, {@code offsetMsgId} = its offset message id; {@code msgId} and
 * {@code transactionId} = UNIQ_KEY (left out when the message has none, as RocketMQ leaves a null field out);
 * {@code bname} = this broker's name. Body: {@link CheckRequestBody}.
 */
final class CheckTransactionStateRequest {
    /** A property the store may end a record with; RocketMQ's decoder drops it, so the body does not carry it. */
    private static final String RECORD_CRC_PROPERTY = "__CRC32#";

    private CheckTransactionStateRequest() {
    }

    static RemotingCommand of(StoredMessage copy, String brokerName) {
        Map<String, String> properties = copy.propertyMap();
        properties.remove(RECORD_CRC_PROPERTY);
        RemotingCommand request = RemotingCommand.request(RequestCode.CHECK_TRANSACTION_STATE);
        request.putExtField("tranStateTableOffset", Long.toString(copy.queueOffset()));
        request.putExtField("commitLogOffset", Long.toString(copy.physicalOffset()));
        String uniqKey = properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        if (uniqKey != null) {
            request.putExtField("msgId", uniqKey);
            request.putExtField("transactionId", uniqKey);
        }
        request.putExtField("offsetMsgId", copy.offsetMsgId());
        request.putExtField("bname", brokerName);
        request.setBody(CheckRequestBody.encode(copy, HalfMessages.realTopic(copy), HalfMessages.realQueueId(copy),
            properties));
        request.markOneway();
        return request;
    }
}
