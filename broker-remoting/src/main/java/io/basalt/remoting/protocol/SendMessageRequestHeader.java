package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * Header of {@link RequestCode#SEND_MESSAGE}; field names as RocketMQ's. Clients usually send the
 * short-named {@link SendMessageRequestHeaderV2} instead; {@link #parse} reads either.
 */
public final class SendMessageRequestHeader extends RpcRequestHeader {
    private String producerGroup;
    private String topic;
    private String defaultTopic;
    private Integer defaultTopicQueueNums;
    private Integer queueId;
    private Integer sysFlag;
    private Long bornTimestamp;
    private Integer flag;
    private String properties;
    private Integer reconsumeTimes;
    private boolean unitMode;
    private boolean batch;
    private Integer maxReconsumeTimes;

    /**
     * Reads the send header of a SEND_MESSAGE, SEND_MESSAGE_V2 or SEND_BATCH_MESSAGE request, or of the
     * SEND_REPLY_MESSAGE (long names) or SEND_REPLY_MESSAGE_V2 (short names) a replier sends its reply with.
     *
     * @throws RemotingCommandException for another code, a missing required field or a bad number
     */
    public static SendMessageRequestHeader parse(RemotingCommand request) throws RemotingCommandException {
        Map<String, String> fields = request.extFields();
        if (fields == null) {
            throw new RemotingCommandException("send request " + request.code() + " has no header fields");
        }
        return switch (request.code()) {
            case RequestCode.SEND_MESSAGE, RequestCode.SEND_REPLY_MESSAGE -> decode(fields);
            case RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE, RequestCode.SEND_REPLY_MESSAGE_V2 ->
                SendMessageRequestHeaderV2.decode(fields).toV1();
            default -> throw new RemotingCommandException("request code " + request.code() + " is not a send");
        };
    }

    public static SendMessageRequestHeader decode(Map<String, String> fields) throws RemotingCommandException {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.producerGroup = HeaderFields.requireString(fields, "producerGroup");
        h.topic = HeaderFields.requireString(fields, "topic");
        h.defaultTopic = HeaderFields.requireString(fields, "defaultTopic");
        h.defaultTopicQueueNums = HeaderFields.requireInt32(fields, "defaultTopicQueueNums");
        h.queueId = HeaderFields.requireInt32(fields, "queueId");
        h.sysFlag = HeaderFields.requireInt32(fields, "sysFlag");
        h.bornTimestamp = HeaderFields.requireInt64(fields, "bornTimestamp");
        h.flag = HeaderFields.requireInt32(fields, "flag");
        h.properties = HeaderFields.string(fields, "properties");
        h.reconsumeTimes = HeaderFields.int32(fields, "reconsumeTimes");
        h.unitMode = Boolean.TRUE.equals(HeaderFields.bool(fields, "unitMode"));
        h.batch = Boolean.TRUE.equals(HeaderFields.bool(fields, "batch"));
        h.maxReconsumeTimes = HeaderFields.int32(fields, "maxReconsumeTimes");
        h.decodeRpcFields(fields);
        return h;
    }

    @Override
    public void encode(FieldWriter out) {
        HeaderFields.put(out, "producerGroup", producerGroup);
        HeaderFields.put(out, "topic", topic);
        HeaderFields.put(out, "defaultTopic", defaultTopic);
        HeaderFields.put(out, "defaultTopicQueueNums", defaultTopicQueueNums);
        HeaderFields.put(out, "queueId", queueId);
        HeaderFields.put(out, "sysFlag", sysFlag);
        HeaderFields.put(out, "bornTimestamp", bornTimestamp);
        HeaderFields.put(out, "flag", flag);
        HeaderFields.put(out, "properties", properties);
        HeaderFields.put(out, "reconsumeTimes", reconsumeTimes);
        out.put("unitMode", Boolean.toString(unitMode));
        out.put("batch", Boolean.toString(batch));
        HeaderFields.put(out, "maxReconsumeTimes", maxReconsumeTimes);
        encodeRpcFields(out);
    }

    /** RocketMQ writes this header through reflection into extFields, never ahead of them. */
    @Override
    public boolean writtenAheadOfExtFields() {
        return false;
    }

    /** The short-named form, as RocketMQ's {@code createSendMessageRequestHeaderV2}. */
    public SendMessageRequestHeaderV2 toV2() {
        SendMessageRequestHeaderV2 v2 = new SendMessageRequestHeaderV2();
        v2.setA(producerGroup);
        v2.setB(topic);
        v2.setC(defaultTopic);
        v2.setD(defaultTopicQueueNums);
        v2.setE(queueId);
        v2.setF(sysFlag);
        v2.setG(bornTimestamp);
        v2.setH(flag);
        v2.setI(properties);
        v2.setJ(reconsumeTimes);
        v2.setK(unitMode);
        v2.setL(maxReconsumeTimes);
        v2.setM(batch);
        v2.setN(getBrokerName());
        return v2;
    }

    public String getProducerGroup() {
        return producerGroup;
    }

    public void setProducerGroup(String producerGroup) {
        this.producerGroup = producerGroup;
    }

    public String getTopic() {
        return topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public String getDefaultTopic() {
        return defaultTopic;
    }

    public void setDefaultTopic(String defaultTopic) {
        this.defaultTopic = defaultTopic;
    }

    public Integer getDefaultTopicQueueNums() {
        return defaultTopicQueueNums;
    }

    public void setDefaultTopicQueueNums(Integer defaultTopicQueueNums) {
        this.defaultTopicQueueNums = defaultTopicQueueNums;
    }

    public Integer getQueueId() {
        return queueId;
    }

    public void setQueueId(Integer queueId) {
        this.queueId = queueId;
    }

    public Integer getSysFlag() {
        return sysFlag;
    }

    public void setSysFlag(Integer sysFlag) {
        this.sysFlag = sysFlag;
    }

    public Long getBornTimestamp() {
        return bornTimestamp;
    }

    public void setBornTimestamp(Long bornTimestamp) {
        this.bornTimestamp = bornTimestamp;
    }

    public Integer getFlag() {
        return flag;
    }

    public void setFlag(Integer flag) {
        this.flag = flag;
    }

    public String getProperties() {
        return properties;
    }

    public void setProperties(String properties) {
        this.properties = properties;
    }

    public Integer getReconsumeTimes() {
        return reconsumeTimes;
    }

    public void setReconsumeTimes(Integer reconsumeTimes) {
        this.reconsumeTimes = reconsumeTimes;
    }

    public boolean isUnitMode() {
        return unitMode;
    }

    public void setUnitMode(boolean unitMode) {
        this.unitMode = unitMode;
    }

    public boolean isBatch() {
        return batch;
    }

    public void setBatch(boolean batch) {
        this.batch = batch;
    }

    public Integer getMaxReconsumeTimes() {
        return maxReconsumeTimes;
    }

    public void setMaxReconsumeTimes(Integer maxReconsumeTimes) {
        this.maxReconsumeTimes = maxReconsumeTimes;
    }
}
