package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * Header of {@link RequestCode#PULL_MESSAGE} and {@link RequestCode#LITE_PULL_MESSAGE}; field names as
 * RocketMQ's, including its spelling of {@code proxyFrowardClientId}.
 */
public final class PullMessageRequestHeader extends RpcRequestHeader {
    private String consumerGroup;
    private String topic;
    private Integer queueId;
    private Long queueOffset;
    private Integer maxMsgNums;
    private Integer sysFlag;
    private Long commitOffset;
    private Long suspendTimeoutMillis;
    private String subscription;
    private Long subVersion;
    private String expressionType;
    private Integer maxMsgBytes;
    private Integer requestSource;
    private String proxyFrowardClientId;

    public static PullMessageRequestHeader decode(Map<String, String> fields) throws RemotingCommandException {
        PullMessageRequestHeader h = new PullMessageRequestHeader();
        h.consumerGroup = HeaderFields.requireString(fields, "consumerGroup");
        h.topic = HeaderFields.requireString(fields, "topic");
        h.queueId = HeaderFields.requireInt32(fields, "queueId");
        h.queueOffset = HeaderFields.requireInt64(fields, "queueOffset");
        h.maxMsgNums = HeaderFields.requireInt32(fields, "maxMsgNums");
        h.sysFlag = HeaderFields.requireInt32(fields, "sysFlag");
        h.commitOffset = HeaderFields.requireInt64(fields, "commitOffset");
        h.suspendTimeoutMillis = HeaderFields.requireInt64(fields, "suspendTimeoutMillis");
        h.subscription = HeaderFields.string(fields, "subscription");
        h.subVersion = HeaderFields.requireInt64(fields, "subVersion");
        h.expressionType = HeaderFields.string(fields, "expressionType");
        h.maxMsgBytes = HeaderFields.int32(fields, "maxMsgBytes");
        h.requestSource = HeaderFields.int32(fields, "requestSource");
        h.proxyFrowardClientId = HeaderFields.string(fields, "proxyFrowardClientId");
        h.decodeRpcFields(fields);
        return h;
    }

    @Override
    public void encode(FieldWriter out) {
        HeaderFields.put(out, "consumerGroup", consumerGroup);
        HeaderFields.put(out, "topic", topic);
        HeaderFields.put(out, "queueId", queueId);
        HeaderFields.put(out, "queueOffset", queueOffset);
        HeaderFields.put(out, "maxMsgNums", maxMsgNums);
        HeaderFields.put(out, "sysFlag", sysFlag);
        HeaderFields.put(out, "commitOffset", commitOffset);
        HeaderFields.put(out, "suspendTimeoutMillis", suspendTimeoutMillis);
        HeaderFields.put(out, "subscription", subscription);
        HeaderFields.put(out, "subVersion", subVersion);
        HeaderFields.put(out, "expressionType", expressionType);
        HeaderFields.put(out, "maxMsgBytes", maxMsgBytes);
        HeaderFields.put(out, "requestSource", requestSource);
        HeaderFields.put(out, "proxyFrowardClientId", proxyFrowardClientId);
        encodeRpcFields(out);
    }

    public String getConsumerGroup() {
        return consumerGroup;
    }

    public void setConsumerGroup(String consumerGroup) {
        this.consumerGroup = consumerGroup;
    }

    public String getTopic() {
        return topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
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

    public Integer getMaxMsgNums() {
        return maxMsgNums;
    }

    public void setMaxMsgNums(Integer maxMsgNums) {
        this.maxMsgNums = maxMsgNums;
    }

    public Integer getSysFlag() {
        return sysFlag;
    }

    public void setSysFlag(Integer sysFlag) {
        this.sysFlag = sysFlag;
    }

    public Long getCommitOffset() {
        return commitOffset;
    }

    public void setCommitOffset(Long commitOffset) {
        this.commitOffset = commitOffset;
    }

    public Long getSuspendTimeoutMillis() {
        return suspendTimeoutMillis;
    }

    public void setSuspendTimeoutMillis(Long suspendTimeoutMillis) {
        this.suspendTimeoutMillis = suspendTimeoutMillis;
    }

    public String getSubscription() {
        return subscription;
    }

    public void setSubscription(String subscription) {
        this.subscription = subscription;
    }

    public Long getSubVersion() {
        return subVersion;
    }

    public void setSubVersion(Long subVersion) {
        this.subVersion = subVersion;
    }

    public String getExpressionType() {
        return expressionType;
    }

    public void setExpressionType(String expressionType) {
        this.expressionType = expressionType;
    }

    public Integer getMaxMsgBytes() {
        return maxMsgBytes;
    }

    public void setMaxMsgBytes(Integer maxMsgBytes) {
        this.maxMsgBytes = maxMsgBytes;
    }

    public Integer getRequestSource() {
        return requestSource;
    }

    public void setRequestSource(Integer requestSource) {
        this.requestSource = requestSource;
    }

    public String getProxyFrowardClientId() {
        return proxyFrowardClientId;
    }

    public void setProxyFrowardClientId(String proxyFrowardClientId) {
        this.proxyFrowardClientId = proxyFrowardClientId;
    }
}
