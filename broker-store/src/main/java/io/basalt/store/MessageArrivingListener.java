package io.basalt.store;

import io.basalt.store.queue.ConsumeQueue;

/** Told by the dispatcher after each ConsumeQueue entry is written (long-polling pulls wait on it). */
@FunctionalInterface
public interface MessageArrivingListener {
    void arriving(String topic, int queueId, long consumeQueueOffset, long tagsCode, long storeTimestamp);
}
