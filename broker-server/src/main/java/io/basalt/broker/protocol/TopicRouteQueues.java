package io.basalt.broker.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The readable queues of a {@code TopicRouteData} body (GET_ROUTEINFO_BY_TOPIC), as RocketMQ's
 * {@code topicRouteData2TopicSubscribeInfo} makes them: for each {@code queueDatas} entry whose perm allows reading,
 * queues {@code 0 .. readQueueNums − 1} of its broker name.
 */
public final class TopicRouteQueues {
    private static final int PERM_READ = 4;

    private TopicRouteQueues() {
    }

    public static List<MessageQueue> readable(String topic, byte[] routeData) {
        JsonObject route = JsonObject.parse(routeData, "TopicRouteData");
        List<MessageQueue> queues = new ArrayList<>();
        for (JsonObject queueData : route.list("queueDatas", q -> JsonObject.of(q, "QueueData"))) {
            if ((queueData.intValue("perm", 0) & PERM_READ) == 0) {
                continue;
            }
            String brokerName = queueData.string("brokerName", null);
            for (int id = 0; id < queueData.intValue("readQueueNums", 0); id++) {
                queues.add(new MessageQueue(topic, brokerName, id));
            }
        }
        return queues;
    }
}
