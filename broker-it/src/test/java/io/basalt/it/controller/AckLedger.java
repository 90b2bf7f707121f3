package io.basalt.it.controller;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.apache.rocketmq.client.hook.SendMessageContext;
import org.apache.rocketmq.client.hook.SendMessageHook;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

import io.basalt.it.Clients;

/**
 * Load from the official producer with a ledger of what was acknowledged: {@code threads} threads send
 * synchronously, each message's body starting with a unique sequence number (also its key). The producer does not
 * retry ({@code retryTimesWhenSendFailed=0}) and a failed send is not sent again, so a sequence number is stored at
 * most once unless the brokers duplicate it. Every SEND_OK is recorded with the address of the broker that gave it
 * (the client's send hook names the broker the request went to) and the time it arrived.
 */
final class AckLedger implements AutoCloseable {
    /** One acknowledged send: its sequence number, the broker address that acknowledged it, when (nanoTime). */
    record Ack(long sequence, String broker, long atNanos) {
    }

    private final DefaultMQProducer producer;
    private final String topic;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<Long, Ack> acked = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Ack> inOrder = new ConcurrentLinkedQueue<>();
    private final LongAdder failed = new LongAdder();
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final ThreadLocal<String> lastBroker = new ThreadLocal<>();
    private volatile boolean running = true;

    AckLedger(String namesrv, String topic, int threadCount) throws Exception {
        this.topic = topic;
        producer = new DefaultMQProducer("pg-" + topic);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(Clients.instanceName());
        producer.setPollNameServerInterval(500);
        producer.setSendMsgTimeout(5_000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.getDefaultMQProducerImpl().registerSendMessageHook(new SendMessageHook() {
            @Override
            public String hookName() {
                return "ack-ledger";
            }

            @Override
            public void sendMessageBefore(SendMessageContext context) {
                lastBroker.set(context.getBrokerAddr());
            }

            @Override
            public void sendMessageAfter(SendMessageContext context) {
                lastBroker.set(context.getBrokerAddr());
            }
        });
        producer.start();
        for (int t = 0; t < threadCount; t++) {
            threads.add(new Thread(this::run, "ack-ledger-sender-" + t));
        }
        threads.forEach(Thread::start);
    }

    private void run() {
        while (running) {
            long seq = sequence.getAndIncrement();
            Message msg = new Message(topic, ByteBuffer.allocate(256).putLong(seq).array());
            msg.setKeys(Long.toString(seq));
            try {
                lastBroker.remove();
                if (producer.send(msg).getSendStatus() == SendStatus.SEND_OK) {
                    Ack ack = new Ack(seq, lastBroker.get(), System.nanoTime());
                    acked.put(seq, ack);
                    inOrder.add(ack);
                } else {
                    failed.increment();
                }
            } catch (Exception e) {
                failed.increment();
                lastError.set(e.toString());
                try {
                    Thread.sleep(20);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    long ackedCount() {
        return acked.size();
    }

    /** The acks that arrived after {@code nanos}, in arrival order. */
    List<Ack> ackedAfter(long nanos) {
        return inOrder.stream().filter(a -> a.atNanos() > nanos).toList();
    }

    List<Ack> acks() {
        return List.copyOf(inOrder);
    }

    String lastError() {
        return lastError.get();
    }

    long failed() {
        return failed.sum();
    }

    Map<Long, Ack> acked() {
        return Map.copyOf(acked);
    }

    static long sequenceOf(MessageExt m) {
        return ByteBuffer.wrap(m.getBody()).getLong();
    }

    /** Stops the senders (each finishes its send in flight) and the producer. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        producer.shutdown();
    }

    @Override
    public void close() throws InterruptedException {
        if (running) {
            stop();
        }
    }
}
