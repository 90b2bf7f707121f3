package io.basalt.tools;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;

/** What a test must wait for before it commits offsets through the official lite pull consumer. */
final class LitePullConsumers {
    private LitePullConsumers() {
    }

    /**
     * The client's pull task reads the group's offset from the broker once, on its first run, and keeps
     * what it read as the consumer's offset: a commit made before that read returns is overwritten by it,
     * and the stale value is what the consumer then persists. Messages in the cache mean the read is done.
     */
    static void awaitFirstPull(DefaultLitePullConsumer consumer) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !consumer.poll(200).isEmpty());
    }
}
