package io.basalt.it;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.impl.consumer.ConsumeMessageService;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageExt;

/** Official 5.2.0 clients pointed at a broker that is its own name server, with short test intervals. */
public final class Clients {
    private static final AtomicInteger INSTANCE = new AtomicInteger();

    static {
        // Rebalance every 2 s instead of 20 s, so a second consumer gets its share quickly.
        System.setProperty("rocketmq.client.rebalance.waitInterval", "2000");
        System.setProperty("rocketmq.client.logUseSlf4j", "true");
    }

    private Clients() {
    }

    public static String instanceName() {
        return "it-" + ProcessHandle.current().pid() + "-" + INSTANCE.incrementAndGet();
    }

    /**
     * Shuts a push consumer down completely. The 5.2.0 client's {@code DefaultMQPushConsumerImpl.shutdown} stops
     * only its PULL consume service: a consumer that was given POP queues (clientRebalance=false) keeps the
     * {@code ConsumeMessageThread_} pool of its POP consume service running forever, so stop that one too.
     */
    public static void shutdownPushConsumer(DefaultMQPushConsumer consumer) throws ReflectiveOperationException {
        consumer.shutdown();
        Field field = DefaultMQPushConsumerImpl.class.getDeclaredField("consumeMessagePopService");
        field.setAccessible(true);
        ConsumeMessageService pop = (ConsumeMessageService) field.get(consumer.getDefaultMQPushConsumerImpl());
        if (pop != null) {
            pop.shutdown(0);
        }
    }

    public static DefaultMQProducer producer(BrokerProcess broker, String group) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(broker.address());
        p.setInstanceName(instanceName());
        p.setSendMsgTimeout(10_000);
        p.setPollNameServerInterval(1000);
        p.start();
        return p;
    }

    public static DefaultLitePullConsumer litePull(BrokerProcess broker, String group, String topic, String tags) throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(instanceName());
        c.setPollNameServerInterval(1000);
        c.setAutoCommitIntervalMillis(1000);
        c.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, tags);
        c.start();
        return c;
    }

    /** Polls until {@code count} messages arrived or the deadline passed; returns what arrived. */
    public static List<MessageExt> pollAtLeast(DefaultLitePullConsumer c, int count, long timeoutMs) {
        List<MessageExt> received = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (received.size() < count && System.currentTimeMillis() < deadline) {
            received.addAll(c.poll(1000));
        }
        return received;
    }
}
