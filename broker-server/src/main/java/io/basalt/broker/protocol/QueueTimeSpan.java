package io.basalt.broker.protocol;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code QueueTimeSpan}, one queue of the QUERY_CONSUME_TIME_SPAN body ({@code QueryConsumeTimeSpanBody}
 * is {@link #encodeBody}): the store times of the queue's first and last messages and of the group's last consumed
 * one, and how long the next message to consume has waited. fastjson also writes the {@code *Str} getters,
 * {@code yyyy-MM-dd#HH:mm:ss:SSS} in the broker's time zone.
 */
public record QueueTimeSpan(MessageQueue messageQueue, long minTimeStamp, long maxTimeStamp, long consumeTimeStamp,
                            long delayTime) {
    private static final DateTimeFormatter HUMAN = DateTimeFormatter.ofPattern("yyyy-MM-dd'#'HH:mm:ss:SSS");

    Map<String, Object> toJson(ZoneId zone) {
        Map<String, Object> json = JsonObject.fields();
        json.put("consumeTimeStamp", consumeTimeStamp);
        json.put("consumeTimeStampStr", human(consumeTimeStamp, zone));
        json.put("delayTime", delayTime);
        json.put("maxTimeStamp", maxTimeStamp);
        json.put("maxTimeStampStr", human(maxTimeStamp, zone));
        json.put("messageQueue", messageQueue.toJson());
        json.put("minTimeStamp", minTimeStamp);
        json.put("minTimeStampStr", human(minTimeStamp, zone));
        return json;
    }

    private static String human(long millis, ZoneId zone) {
        return HUMAN.format(Instant.ofEpochMilli(millis).atZone(zone));
    }

    /** The {@code QueryConsumeTimeSpanBody}: {@code {"consumeTimeSpanSet":[...]}}. */
    public static byte[] encodeBody(List<QueueTimeSpan> spans, ZoneId zone) {
        List<Object> set = new ArrayList<>();
        spans.forEach(s -> set.add(s.toJson(zone)));
        Map<String, Object> json = JsonObject.fields();
        json.put("consumeTimeSpanSet", set);
        return Json.encode(json);
    }
}
