package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * Header of {@link RequestCode#PUSH_REPLY_MESSAGE_TO_CLIENT}, the request a broker sends to a requester
 * to hand it a reply (the reply's body is the command's body): the replier's send header plus where the
 * reply came from ({@code bornHost}), which broker pushed it ({@code storeHost}, both {@code ip:port}) and
 * when ({@code storeTimestamp}, ms). Field names as RocketMQ's {@code ReplyMessageRequestHeader}.
 */
public final class ReplyMessageRequestHeader extends RpcRequestHeader {
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
    private String bornHost;
    private String storeHost;
    private long storeTimestamp;

    /** The push header of a reply sent with {@code send}: its send fields copied, the three push fields unset. */
    public static ReplyMessageRequestHeader of(SendMessageRequestHeader send) {
        ReplyMessageRequestHeader h = new ReplyMessageRequestHeader();
        h.producerGroup = send.getProducerGroup();
        h.topic = send.getTopic();
        h.defaultTopic = send.getDefaultTopic();
        h.defaultTopicQueueNums = send.getDefaultTopicQueueNums();
        h.queueId = send.getQueueId();
        h.sysFlag = send.getSysFlag();
        h.bornTimestamp = send.getBornTimestamp();
        h.flag = send.getFlag();
        h.properties = send.getProperties();
        h.reconsumeTimes = send.getReconsumeTimes();
        h.unitMode = send.isUnitMode();
        return h;
    }

    public static ReplyMessageRequestHeader decode(Map<String, String> fields) throws RemotingCommandException {
        ReplyMessageRequestHeader h = new ReplyMessageRequestHeader();
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
        h.bornHost = HeaderFields.requireString(fields, "bornHost");
        h.storeHost = HeaderFields.requireString(fields, "storeHost");
        h.storeTimestamp = HeaderFields.requireInt64(fields, "storeTimestamp");
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
        HeaderFields.put(out, "bornHost", bornHost);
        HeaderFields.put(out, "storeHost", storeHost);
        out.put("storeTimestamp", Long.toString(storeTimestamp));
        encodeRpcFields(out);
    }

    /** RocketMQ writes this header through reflection into extFields, never ahead of them. */
    @Override
    public boolean writtenAheadOfExtFields() {
        return false;
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

    public String getBornHost() {
        return bornHost;
    }

    public void setBornHost(String bornHost) {
        this.bornHost = bornHost;
    }

    public String getStoreHost() {
        return storeHost;
    }

    public void setStoreHost(String storeHost) {
        this.storeHost = storeHost;
    }

    public long getStoreTimestamp() {
        return storeTimestamp;
    }

    public void setStoreTimestamp(long storeTimestamp) {
        this.storeTimestamp = storeTimestamp;
    }
}
