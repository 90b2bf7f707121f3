package io.basalt.broker.grpc;

import com.google.common.hash.Hashing;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The queue a gRPC send goes to (the 5.x client only picks the broker): a message group is pinned to one write queue
 * by consistent hashing of the group over the topic's write queues (RocketMQ's proxy rule, so a group lands where it
 * would there, and moves as little as possible when queues are added); other messages go round robin.
 */
final class QueueChoice {
    private final AtomicInteger next = new AtomicInteger();

    int choose(String messageGroup, int writeQueueNums) {
        if (messageGroup != null) {
            return Hashing.consistentHash(messageGroup.hashCode(), writeQueueNums);
        }
        return Math.floorMod(next.getAndIncrement(), writeQueueNums);
    }
}
