package io.basalt.broker.assignment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.TopicRouteQueues;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.junit.jupiter.api.Test;

/** The queues of a NameServer's route (RocketMQ's TopicRouteData) that QUERY_ASSIGNMENT allocates. */
class TopicRouteQueuesTest {
    private static QueueData queueData(String broker, int read, int perm) {
        QueueData q = new QueueData();
        q.setBrokerName(broker);
        q.setReadQueueNums(read);
        q.setWriteQueueNums(read);
        q.setPerm(perm);
        return q;
    }

    @Test
    void everyReadableBrokerOfTheRouteGivesItsReadQueues() {
        TopicRouteData route = new TopicRouteData();
        route.setQueueDatas(List.of(queueData("broker-a", 2, PermName.PERM_READ | PermName.PERM_WRITE),
            queueData("broker-b", 1, PermName.PERM_READ), queueData("broker-c", 4, PermName.PERM_WRITE)));
        route.setBrokerDatas(List.of());
        assertEquals(List.of(new MessageQueue("T", "broker-a", 0), new MessageQueue("T", "broker-a", 1),
            new MessageQueue("T", "broker-b", 0)), TopicRouteQueues.readable("T", route.encode()));
    }
}
