package io.basalt.it.controller;

import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

import io.basalt.it.Clients;

/** Reads a whole topic with the official lite pull consumer (a new group, from the first offset, through the NameServer). */
final class TopicReadBack {
    private TopicReadBack() {
    }

    /**
     * How many times each sequence number ({@link AckLedger#sequenceOf}) is in {@code topic}: polls until at least
     * {@code expected} messages arrived and then 3 s pass without one, or 60 s without one.
     */
    static Map<Long, Integer> copies(String namesrv, String topic, long expected) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer("rb-" + topic + "-" + System.nanoTime());
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setAutoCommit(false);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.start();
        Map<Long, Integer> copies = new HashMap<>();
        long received = 0;
        try {
            long lastArrival = System.nanoTime();
            while (true) {
                var batch = c.poll(500);
                for (MessageExt m : batch) {
                    copies.merge(AckLedger.sequenceOf(m), 1, Integer::sum);
                    received++;
                }
                long quietNanos = System.nanoTime() - lastArrival;
                if (!batch.isEmpty()) {
                    lastArrival = System.nanoTime();
                } else if (received >= expected && quietNanos > 3_000_000_000L || quietNanos > 60_000_000_000L) {
                    return copies;
                }
            }
        } finally {
            c.shutdown();
        }
    }
}
