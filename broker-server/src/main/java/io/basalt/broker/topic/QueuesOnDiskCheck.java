package io.basalt.broker.topic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares topics.json with the consume queues the store holds, once at start (after the store is
 * loaded, before anything is served). A topic whose readQueueNums is lower than the queues on disk
 * that hold messages would leave those messages unreachable (consumers only ask for the read queues
 * the route advertises, and pulls past readQueueNums are refused): its readQueueNums is raised to the
 * count on disk, with one WARN naming the topic and both counts, and persisted. writeQueueNums stays
 * as configured, so no new message goes to the extra queues; this is RocketMQ's own way of shrinking a
 * topic (write queues first, read queues once drained), which the operator can finish with
 * {@code updateTopic -r} once the extra queues are consumed. A topic with queues on disk but absent
 * from topics.json is reported only (WARN): Basalt does not guess its settings.
 *
 * <p>Runs on the start-up thread.
 */
public final class QueuesOnDiskCheck {
    private static final Logger log = LoggerFactory.getLogger(QueuesOnDiskCheck.class);

    private QueuesOnDiskCheck() {
    }

    /**
     * @param onDisk per topic, the highest queue id holding messages plus one
     *               ({@link io.basalt.store.MessageStore#queueCountsOnDisk()})
     * @return the topics whose readQueueNums was raised
     */
    public static List<String> apply(TopicConfigManager topics, Map<String, Integer> onDisk) throws IOException {
        List<String> raised = new ArrayList<>();
        for (Map.Entry<String, Integer> e : onDisk.entrySet()) {
            String topic = e.getKey();
            int queues = e.getValue();
            TopicConfig config = topics.get(topic);
            if (config == null) {
                log.warn("Topic {} has {} consume queues holding messages on disk but is not in topics.json: its messages "
                    + "are not served until the topic is created again (with at least {} read queues)", topic, queues,
                    queues);
                continue;
            }
            if (config.readQueueNums() < queues) {
                log.warn("Topic {}: topics.json says readQueueNums={} writeQueueNums={} but {} consume queues hold "
                    + "messages on disk; raising readQueueNums to {} so every stored message stays readable "
                    + "(writeQueueNums unchanged)", topic, config.readQueueNums(), config.writeQueueNums(), queues,
                    queues);
                topics.createOrUpdate(config.withReadQueueNums(queues));
                raised.add(topic);
            }
        }
        return raised;
    }
}
