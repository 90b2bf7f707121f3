package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code QueueData}: the queues and permission of one topic on one broker, in a route. */
public record QueueData(String brokerName, int readQueueNums, int writeQueueNums, int perm, int topicSysFlag) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerName", brokerName);
        json.put("perm", perm);
        json.put("readQueueNums", readQueueNums);
        json.put("topicSysFlag", topicSysFlag);
        json.put("writeQueueNums", writeQueueNums);
        return json;
    }

    public static QueueData fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "QueueData");
        return new QueueData(json.string("brokerName", null), json.intValue("readQueueNums", 0),
            json.intValue("writeQueueNums", 0), json.intValue("perm", 0), json.intValue("topicSysFlag", 0));
    }
}
