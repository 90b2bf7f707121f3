package io.basalt.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Reads every record of a topic's queues by queue offset, from offset 0, with the official pull consumer (no
 * group offset involved): each record the broker stored is seen exactly once, so a message the broker put twice
 * into its real topic shows as two records. Keeps its position per queue across calls and across broker
 * restarts (the client reconnects). One thread at a time.
 */
public final class TopicReader implements AutoCloseable {
    private final DefaultMQPullConsumer pull;
    private final String topic;
    private final String brokerName;
    private final int queues;
    private final Map<Integer, Long> next = new HashMap<>();

    public TopicReader(String namesrvAddr, String topic, String brokerName, int queues) throws Exception {
        this.topic = topic;
        this.brokerName = brokerName;
        this.queues = queues;
        this.pull = new DefaultMQPullConsumer("cg-topic-reader");
        pull.setNamesrvAddr(namesrvAddr);
        pull.setInstanceName(Clients.instanceName());
        pull.start();
    }

    /** The records stored since the previous call (an unreachable broker reads as nothing new). */
    public List<MessageExt> readNew() {
        List<MessageExt> found = new ArrayList<>();
        for (int q = 0; q < queues; q++) {
            MessageQueue mq = new MessageQueue(topic, brokerName, q);
            long offset = next.getOrDefault(q, 0L);
            try {
                while (true) {
                    PullResult result = pull.pull(mq, "*", offset, 32, 3000);
                    if (result.getPullStatus() != PullStatus.FOUND) {
                        break;
                    }
                    for (MessageExt m : result.getMsgFoundList()) {
                        found.add(m);
                    }
                    offset = result.getNextBeginOffset();
                }
            } catch (Exception brokerAway) {
                // the broker is down or restarting: what was found so far counts, the rest is read next time
            }
            next.put(q, offset);
        }
        return found;
    }

    /** Records stored in the topic so far, by the reader's position. */
    public long position() {
        return next.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void close() {
        pull.shutdown();
    }
}
