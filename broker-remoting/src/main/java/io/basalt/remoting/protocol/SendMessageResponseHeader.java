package io.basalt.remoting.protocol;

import java.util.Map;

/** Header of a send response; field names as RocketMQ's. */
public final class SendMessageResponseHeader implements CommandHeader {
    private String msgId;
    private Integer queueId;
    private Long queueOffset;
    private String transactionId;
    private String batchUniqId;

    public static SendMessageResponseHeader decode(Map<String, String> fields) throws RemotingCommandException {
        SendMessageResponseHeader h = new SendMessageResponseHeader();
        h.msgId = HeaderFields.requireString(fields, "msgId");
        h.queueId = HeaderFields.requireInt32(fields, "queueId");
        h.queueOffset = HeaderFields.requireInt64(fields, "queueOffset");
        h.transactionId = HeaderFields.string(fields, "transactionId");
        h.batchUniqId = HeaderFields.string(fields, "batchUniqId");
        return h;
    }

    @Override
    public void encode(FieldWriter out) {
        HeaderFields.put(out, "msgId", msgId);
        HeaderFields.put(out, "queueId", queueId);
        HeaderFields.put(out, "queueOffset", queueOffset);
        HeaderFields.put(out, "transactionId", transactionId);
        HeaderFields.put(out, "batchUniqId", batchUniqId);
    }

    public String getMsgId() {
        return msgId;
    }

    public void setMsgId(String msgId) {
        this.msgId = msgId;
    }

    public Integer getQueueId() {
        return queueId;
    }

    public void setQueueId(Integer queueId) {
        this.queueId = queueId;
    }

    public Long getQueueOffset() {
        return queueOffset;
    }

    public void setQueueOffset(Long queueOffset) {
        this.queueOffset = queueOffset;
    }

    public String getTransactionId() {
        return transactionId;
    }

    public void setTransactionId(String transactionId) {
        this.transactionId = transactionId;
    }

    public String getBatchUniqId() {
        return batchUniqId;
    }

    public void setBatchUniqId(String batchUniqId) {
        this.batchUniqId = batchUniqId;
    }
}
