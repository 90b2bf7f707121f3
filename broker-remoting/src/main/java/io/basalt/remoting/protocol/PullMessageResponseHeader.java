package io.basalt.remoting.protocol;

import java.util.Map;

/** Header of a pull response; field names as RocketMQ's. */
public final class PullMessageResponseHeader implements CommandHeader {
    private Long suggestWhichBrokerId;
    private Long nextBeginOffset;
    private Long minOffset;
    private Long maxOffset;
    private Long offsetDelta;
    private Integer topicSysFlag;
    private Integer groupSysFlag;
    private Integer forbiddenType;

    public static PullMessageResponseHeader decode(Map<String, String> fields) throws RemotingCommandException {
        PullMessageResponseHeader h = new PullMessageResponseHeader();
        h.suggestWhichBrokerId = HeaderFields.requireInt64(fields, "suggestWhichBrokerId");
        h.nextBeginOffset = HeaderFields.requireInt64(fields, "nextBeginOffset");
        h.minOffset = HeaderFields.requireInt64(fields, "minOffset");
        h.maxOffset = HeaderFields.requireInt64(fields, "maxOffset");
        h.offsetDelta = HeaderFields.int64(fields, "offsetDelta");
        h.topicSysFlag = HeaderFields.int32(fields, "topicSysFlag");
        h.groupSysFlag = HeaderFields.int32(fields, "groupSysFlag");
        h.forbiddenType = HeaderFields.int32(fields, "forbiddenType");
        return h;
    }

    @Override
    public void encode(FieldWriter out) {
        HeaderFields.put(out, "suggestWhichBrokerId", suggestWhichBrokerId);
        HeaderFields.put(out, "nextBeginOffset", nextBeginOffset);
        HeaderFields.put(out, "minOffset", minOffset);
        HeaderFields.put(out, "maxOffset", maxOffset);
        HeaderFields.put(out, "offsetDelta", offsetDelta);
        HeaderFields.put(out, "topicSysFlag", topicSysFlag);
        HeaderFields.put(out, "groupSysFlag", groupSysFlag);
        HeaderFields.put(out, "forbiddenType", forbiddenType);
    }

    public Long getSuggestWhichBrokerId() {
        return suggestWhichBrokerId;
    }

    public void setSuggestWhichBrokerId(Long suggestWhichBrokerId) {
        this.suggestWhichBrokerId = suggestWhichBrokerId;
    }

    public Long getNextBeginOffset() {
        return nextBeginOffset;
    }

    public void setNextBeginOffset(Long nextBeginOffset) {
        this.nextBeginOffset = nextBeginOffset;
    }

    public Long getMinOffset() {
        return minOffset;
    }

    public void setMinOffset(Long minOffset) {
        this.minOffset = minOffset;
    }

    public Long getMaxOffset() {
        return maxOffset;
    }

    public void setMaxOffset(Long maxOffset) {
        this.maxOffset = maxOffset;
    }

    public Long getOffsetDelta() {
        return offsetDelta;
    }

    public void setOffsetDelta(Long offsetDelta) {
        this.offsetDelta = offsetDelta;
    }

    public Integer getTopicSysFlag() {
        return topicSysFlag;
    }

    public void setTopicSysFlag(Integer topicSysFlag) {
        this.topicSysFlag = topicSysFlag;
    }

    public Integer getGroupSysFlag() {
        return groupSysFlag;
    }

    public void setGroupSysFlag(Integer groupSysFlag) {
        this.groupSysFlag = groupSysFlag;
    }

    public Integer getForbiddenType() {
        return forbiddenType;
    }

    public void setForbiddenType(Integer forbiddenType) {
        this.forbiddenType = forbiddenType;
    }
}
