package io.basalt.tools.bench.failover;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Reads the whole topic back with the official push consumer (from the first offset, through the NameServer,
 * so from the current master) and counts which acknowledged sequence numbers are there: an acknowledged message
 * that is missing was lost by a failover. Duplicates are expected (a send retried after a lost answer) and counted.
 */
final class ReadBack {
    record Outcome(long acknowledged, long found, long missing, long delivered, long duplicates) {
    }

    /**
     * {@code acknowledged}: sequence number to the nanoTime of its ack; {@code kills}: the nanoTimes of the kills,
     * for the report of where the missing ones were acknowledged.
     */
    static Outcome run(String namesrv, String topic, Map<Long, Long> ackedAt, List<Long> kills, int quietSeconds,
                       PrintWriter out) throws Exception {
        Set<Long> acknowledged = ackedAt.keySet();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        LongAdder delivered = new LongAdder();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("failoverbench_g_" + System.currentTimeMillis());
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("failoverbench-readback-" + ProcessHandle.current().pid());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeThreadMin(4);
        consumer.setConsumeThreadMax(4);
        consumer.setConsumeMessageBatchMaxSize(32);
        consumer.setPullBatchSize(256);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                delivered.increment();
                seen.add(java.nio.ByteBuffer.wrap(m.getBody()).getLong());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            long lastCount = -1;
            long quietSince = System.nanoTime();
            while (true) {
                long found = acknowledged.stream().filter(seen::contains).count();
                if (found == acknowledged.size()) {
                    Thread.sleep(2000); // the tail of duplicates
                    break;
                }
                long count = delivered.sum();
                if (count != lastCount) {
                    lastCount = count;
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(quietSeconds)) {
                    break;
                }
                Thread.sleep(1000);
            }
        } finally {
            consumer.shutdown();
        }
        long found = acknowledged.stream().filter(seen::contains).count();
        Outcome o = new Outcome(acknowledged.size(), found, acknowledged.size() - found, delivered.sum(),
            delivered.sum() - seen.size());
        // where the missing ones were acknowledged: per round (kills before the ack) and how long before the next kill
        Map<Integer, long[]> perRound = new TreeMap<>();
        for (Map.Entry<Long, Long> e : ackedAt.entrySet()) {
            if (seen.contains(e.getKey())) {
                continue;
            }
            long at = e.getValue();
            int round = (int) kills.stream().filter(k -> k < at).count();
            long[] agg = perRound.computeIfAbsent(round, k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE});
            agg[0]++;
            if (round < kills.size()) {
                long beforeKillMs = (kills.get(round) - at) / 1_000_000;
                agg[1] = Math.min(agg[1], beforeKillMs);
                agg[2] = Math.max(agg[2], beforeKillMs);
            }
        }
        perRound.forEach((round, agg) -> FailoverBench.progress(out, "missing: %d acknowledged after kill %d%s", agg[0],
            round, agg[1] == Long.MAX_VALUE ? " (after the last kill)"
                : String.format(java.util.Locale.ROOT, ", %d..%d ms before kill %d", agg[1], agg[2], round + 1)));
        FailoverBench.progress(out, "read back: %d of %d acknowledged found, %d missing; %d delivered, %d duplicates",
            o.found(), o.acknowledged(), o.missing(), o.delivered(), o.duplicates());
        return o;
    }

    private ReadBack() {
    }
}
