package io.basalt.broker.pop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.basalt.broker.protocol.Json;

/**
 * A POP checkpoint (CK): the messages one pop handed out from one queue, stored as a {@code ck} record in the revive
 * topic in RocketMQ 5.2.0's {@code PopCheckPoint} JSON (short names, sorted, with the computed {@code reviveTime}
 * that readers ignore). The messages are {@code startOffset + diffs[i]}. Immutable.
 *
 * @param reviveOffset the record's offset in its revive queue, -1 until read back
 */
public record CheckPoint(long startOffset, long popTime, long invisibleTime, int num, int queueId, String topic,
                         String group, long reviveOffset, List<Integer> diffs, String brokerName) {

    public CheckPoint {
        diffs = List.copyOf(diffs);
    }

    /** When the messages become visible again: popTime + invisibleTime. */
    public long reviveTime() {
        return popTime + invisibleTime;
    }

    /** The queue offset of the i-th message. */
    public long offset(int i) {
        return startOffset + diffs.get(i);
    }

    /** Index of the message at {@code queueOffset}, or -1. */
    public int indexOf(long queueOffset) {
        long diff = queueOffset - startOffset;
        return diff < 0 || diff > Integer.MAX_VALUE ? -1 : diffs.indexOf((int) diff);
    }

    /** The key a CK and its ACKs share: topic, group, queueId, startOffset, popTime. */
    public String matchKey() {
        return PopRecords.matchKey(topic, group, queueId, startOffset, popTime);
    }

    /** The synthetic UNIQ_KEY of the record: topic@queueId@startOffset@group@popTime@brokerName@ck. */
    public String uniqKey() {
        return topic + "@" + queueId + "@" + startOffset + "@" + group + "@" + popTime + "@" + brokerName + "@ck";
    }

    public CheckPoint withReviveOffset(long offset) {
        return new CheckPoint(startOffset, popTime, invisibleTime, num, queueId, topic, group, offset, diffs, brokerName);
    }

    public String toJson() {
        Map<String, Object> m = new TreeMap<>();
        m.put("bm", 0);
        m.put("bn", brokerName);
        m.put("c", group);
        m.put("d", diffs);
        m.put("it", invisibleTime);
        m.put("n", num);
        m.put("pt", popTime);
        m.put("q", queueId);
        m.put("reviveTime", reviveTime());
        m.put("ro", reviveOffset < 0 ? 0 : reviveOffset);
        m.put("so", startOffset);
        m.put("t", topic);
        return Json.write(m);
    }

    /** Reads a CK body; a CK without {@code d} (older writers) covers {@code so .. so+n-1}. */
    public static CheckPoint fromJson(byte[] body) {
        Map<?, ?> m = PopRecords.object(new String(body, StandardCharsets.UTF_8));
        int num = (int) PopRecords.longField(m, "n", 0);
        List<Integer> diffs = new ArrayList<>();
        if (m.get("d") instanceof List<?> list) {
            for (Object o : list) {
                diffs.add(((Number) o).intValue());
            }
        } else {
            for (int i = 0; i < num; i++) {
                diffs.add(i);
            }
        }
        return new CheckPoint(PopRecords.longField(m, "so", 0), PopRecords.longField(m, "pt", 0),
            PopRecords.longField(m, "it", 0), num, (int) PopRecords.longField(m, "q", 0),
            PopRecords.stringField(m, "t"), PopRecords.stringField(m, "c"), -1, diffs,
            PopRecords.stringField(m, "bn"));
    }
}
