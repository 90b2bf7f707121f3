package io.basalt.tools.bench.failover;

import java.io.PrintWriter;
import java.util.Set;
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

    static Outcome run(String namesrv, String topic, Set<Long> acknowledged, int quietSeconds, PrintWriter out)
        throws Exception {
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
        FailoverBench.progress(out, "read back: %d of %d acknowledged found, %d missing; %d delivered, %d duplicates",
            o.found(), o.acknowledged(), o.missing(), o.delivered(), o.duplicates());
        return o;
    }

    private ReadBack() {
    }
}
