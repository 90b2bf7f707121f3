package io.basalt.broker.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind RocketMQ 5's traffic metrics: per topic and message type, the messages sends stored, their
 * CommitLog bytes and a size histogram ({@code rocketmq_messages_in_total}, {@code rocketmq_throughput_in_total},
 * {@code rocketmq_message_size}); per topic and consumer group, the messages and bytes pulls returned
 * ({@code rocketmq_messages_out_total}, {@code rocketmq_throughput_out_total}). Retry and DLQ topics are not
 * counted, as by RocketMQ.
 *
 * <p>Threads: {@link #in} and {@link #out} on the send and pull threads: map lookups and {@link LongAdder}
 * increments; nothing is allocated once the topic (and group) has been seen. Reads from any thread.
 */
final class RocketMqTraffic {
    /** RocketMQ's buckets of {@code rocketmq_message_size}, bytes: 1 KiB, 4 KiB, 512 KiB, 1 MiB, 2 MiB, 4 MiB. */
    static final double[] SIZE_BUCKETS = {1024, 4096, 512 * 1024, 1024 * 1024, 2 * 1024 * 1024, 4 * 1024 * 1024,
        Double.POSITIVE_INFINITY};
    private static final int TYPES = RocketMqMessageType.values().length;

    /** What one topic received, by message type (ordinal). */
    static final class In {
        final LongAdder[] messages = adders(TYPES);
        final LongAdder[] bytes = adders(TYPES);
        /** Per type, the non-cumulative counts of {@link #SIZE_BUCKETS}. */
        final LongAdder[][] sizes = new LongAdder[TYPES][];
        final LongAdder[] sizeSum = adders(TYPES);

        In() {
            for (int t = 0; t < TYPES; t++) {
                sizes[t] = adders(SIZE_BUCKETS.length);
            }
        }
    }

    /** What one group got of one topic. */
    static final class Out {
        final LongAdder messages = new LongAdder();
        final LongAdder bytes = new LongAdder();
    }

    private final ConcurrentMap<String, In> in = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ConcurrentMap<String, Out>> out = new ConcurrentHashMap<>();

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    static boolean isRetryOrDlq(String topic) {
        return topic.startsWith("%RETRY%") || topic.startsWith("%DLQ%");
    }

    /**
     * A send stored {@code messages} messages of {@code topic} in {@code recordBytes} CommitLog bytes. As RocketMQ,
     * one size observation per send: the records' mean size.
     */
    void in(String topic, RocketMqMessageType type, int messages, long recordBytes) {
        if (messages <= 0 || isRetryOrDlq(topic)) {
            return;
        }
        In stats = in.get(topic);
        if (stats == null) {
            stats = in.computeIfAbsent(topic, t -> new In());
        }
        int t = type.ordinal();
        stats.messages[t].add(messages);
        stats.bytes[t].add(recordBytes);
        long size = recordBytes / messages;
        stats.sizes[t][bucket(size)].increment();
        stats.sizeSum[t].add(size);
    }

    private static int bucket(long size) {
        int i = 0;
        while (size > SIZE_BUCKETS[i]) {
            i++;
        }
        return i;
    }

    /** A pull returned {@code messages} messages of {@code topic}, {@code bytes} in all, to {@code group}. */
    void out(String topic, String group, int messages, long bytes) {
        if (messages <= 0 || isRetryOrDlq(topic)) {
            return;
        }
        ConcurrentMap<String, Out> groups = out.get(topic);
        if (groups == null) {
            groups = out.computeIfAbsent(topic, t -> new ConcurrentHashMap<>());
        }
        Out stats = groups.get(group);
        if (stats == null) {
            stats = groups.computeIfAbsent(group, g -> new Out());
        }
        stats.messages.add(messages);
        stats.bytes.add(bytes);
    }

    ConcurrentMap<String, In> in() {
        return in;
    }

    ConcurrentMap<String, ConcurrentMap<String, Out>> out() {
        return out;
    }
}
