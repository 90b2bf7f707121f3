package io.basalt.broker.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code EpochEntryCache}: the GET_BROKER_EPOCH_CACHE (1007) response body. Each entry of
 * {@code epochList} is an {@code EpochEntry} {@code {endOffset, epoch, startOffset}} whose end is the next entry's
 * start; the last one's end is {@code Long.MAX_VALUE}, as RocketMQ's epoch cache leaves it ({@code mqadmin
 * getBrokerEpoch} prints {@code maxOffset} there).
 *
 * @param epochs the epoch history, oldest first: {@code [epoch, startOffset]} pairs
 */
public record EpochEntryCache(String clusterName, String brokerName, long brokerId, List<long[]> epochs,
                              long maxOffset) {

    public EpochEntryCache {
        epochs = List.copyOf(epochs);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("clusterName", clusterName);
        json.put("brokerName", brokerName);
        json.put("brokerId", brokerId);
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < epochs.size(); i++) {
            Map<String, Object> entry = JsonObject.fields();
            entry.put("epoch", (int) epochs.get(i)[0]);
            entry.put("startOffset", epochs.get(i)[1]);
            entry.put("endOffset", i + 1 < epochs.size() ? epochs.get(i + 1)[1] : Long.MAX_VALUE);
            list.add(entry);
        }
        json.put("epochList", list);
        json.put("maxOffset", maxOffset);
        return Json.encode(json);
    }
}
