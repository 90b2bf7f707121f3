package io.basalt.tools.bench.failover;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * {@code threads} threads sending {@code size}-byte messages with the official client's synchronous
 * {@code DefaultMQProducer.send} in a loop, as fast as the broker acknowledges. A send is acknowledged when it
 * returns SEND_OK; anything else (another status, an exception) counts as failed, and the thread waits
 * {@link #BACKOFF_MS} before the next send so that a dead master's refused connections do not spin the CPU.
 * The client runs with its defaults (sendMsgTimeout 3 s, two retries) except {@code pollNameServerInterval}.
 */
final class Senders implements AutoCloseable {
    static final long BACKOFF_MS = 5;
    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(60);

    /**
     * One failover: when the master was killed, from when on an acknowledged send counts (sends started once the
     * old master's process is gone, so none of them can have been answered by it), and the first such ack.
     */
    static final class Round {
        final long killNanos;
        volatile long countFromNanos = Long.MAX_VALUE;
        final AtomicLong firstAckNanos = new AtomicLong(Long.MAX_VALUE);

        Round(long killNanos) {
            this.killNanos = killNanos;
        }

        boolean acknowledged() {
            return firstAckNanos.get() != Long.MAX_VALUE;
        }
    }

    private final DefaultMQProducer producer;
    private final String topic;
    private final int size;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Histogram> histograms = new ArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    final LongAdder acked = new LongAdder();
    /** The sequence number of every acknowledged message, for the read-back. */
    final Map<Long, Long> ackedSequences = new ConcurrentHashMap<>();
    final LongAdder failed = new LongAdder();
    final LongAdder windowAcked = new LongAdder();
    final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean inWindow;
    private volatile Round round;

    Senders(String namesrv, String topic, int threadCount, int size, int routePollMs) throws MQClientException {
        this.topic = topic;
        this.size = size;
        producer = new DefaultMQProducer("failoverbench_p_" + System.currentTimeMillis());
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("failoverbench-" + ProcessHandle.current().pid());
        producer.setPollNameServerInterval(routePollMs);
        producer.start();
        for (int t = 0; t < threadCount; t++) {
            Histogram h = new Histogram(HIGHEST_US, 3);
            histograms.add(h);
            threads.add(new Thread(() -> run(h), "failoverbench-sender-" + t));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    private void run(Histogram histogram) {
        while (running) {
            long seq = sequence.getAndIncrement();
            ByteBuffer body = ByteBuffer.allocate(Math.max(16, size));
            body.putLong(seq).putLong(System.currentTimeMillis());
            Message msg = new Message(topic, body.array());
            msg.setKeys(Long.toString(seq));
            long start = System.nanoTime();
            boolean ok = false;
            try {
                SendResult r = producer.send(msg);
                ok = r.getSendStatus() == SendStatus.SEND_OK;
                if (!ok) {
                    firstError.compareAndSet(null, r.getSendStatus().name());
                }
            } catch (Exception e) {
                firstError.compareAndSet(null, FailoverBench.describe(e));
            } catch (Throwable e) {
                firstError.compareAndSet(null, FailoverBench.describe(e));
                throw e;
            }
            long end = System.nanoTime();
            if (ok) {
                acked.increment();
                ackedSequences.put(seq, end);
                Round r = round;
                if (r != null && start >= r.countFromNanos) {
                    r.firstAckNanos.accumulateAndGet(end, Math::min);
                }
                if (inWindow) {
                    windowAcked.increment();
                    histogram.recordValue(Math.min((end - start) / 1000, HIGHEST_US));
                }
            } else {
                failed.increment();
                try {
                    Thread.sleep(BACKOFF_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** From now on, acknowledged sends started after {@code round.killNanos} count for it. */
    void watch(Round r) {
        round = r;
    }

    /** Starts (true) or ends (false) the measured window: acks and latencies are counted only inside it. */
    void window(boolean open) {
        inWindow = open;
    }

    /** Every latency recorded in the window, merged. */
    Histogram latencies() {
        Histogram all = new Histogram(HIGHEST_US, 3);
        histograms.forEach(all::add);
        return all;
    }

    long sent() {
        return sequence.get();
    }

    /** Stops the threads (each finishes its send in flight) and the producer. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        producer.shutdown();
    }
}
