package io.basalt.tools.bench.delay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The official client as the cases use it: topics created through the admin API on every master of the
 * cluster, producers and push consumers with the same settings against either broker, an async sender with a
 * bounded window, an open-loop pacer, and the broker's runtime info. The same code runs against Basalt and
 * RocketMQ; only the NameServer address differs.
 */
public final class BenchClients {
    private final String namesrv;
    private final String instance = "delaybench-" + ProcessHandle.current().pid();

    public BenchClients(String namesrv) {
        this.namesrv = namesrv;
    }

    /** Creates {@code topic} with {@code queues} read/write queues on every master and waits until it is routable. */
    public void createTopic(String topic, int queues) throws Exception {
        DefaultMQAdminExt admin = admin();
        try {
            for (String addr : masterAddresses(admin)) {
                TopicConfig config = new TopicConfig(topic, queues, queues);
                admin.createAndUpdateTopicConfig(addr, config);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    TopicRouteData route = admin.examineTopicRouteInfo(topic);
                    if (route != null && !route.getQueueDatas().isEmpty()) {
                        return;
                    }
                } catch (Exception notYet) {
                    if (System.nanoTime() > deadline) {
                        throw notYet;
                    }
                }
                Thread.sleep(200);
            }
        } finally {
            admin.shutdown();
        }
    }

    /** GET_BROKER_RUNTIME_INFO of the first master (the schedule and timer keys among them). */
    public Map<String, String> runtimeInfo() throws Exception {
        DefaultMQAdminExt admin = admin();
        try {
            return new HashMap<>(admin.fetchBrokerRuntimeStats(masterAddresses(admin).get(0)).getTable());
        } finally {
            admin.shutdown();
        }
    }

    /** Messages stored in {@code topic}: the sum of its queues' max offsets on every broker (GET_TOPIC_STATS_INFO). */
    public long storedMessages(String topic) throws Exception {
        DefaultMQAdminExt admin = admin();
        try {
            return admin.examineTopicStats(topic).getOffsetTable().values().stream()
                .mapToLong(TopicOffset::getMaxOffset).sum();
        } finally {
            admin.shutdown();
        }
    }

    private DefaultMQAdminExt admin() throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(instance + "-admin-" + System.nanoTime());
        admin.start();
        return admin;
    }

    private static List<String> masterAddresses(DefaultMQAdminExt admin) throws Exception {
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        List<String> out = new ArrayList<>();
        for (BrokerData b : cluster.getBrokerAddrTable().values()) {
            String master = b.getBrokerAddrs().get(0L);
            if (master != null) {
                out.add(master);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no master broker registered at " + cluster);
        }
        return out;
    }

    DefaultMQProducer startProducer(String group) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(instance + "-" + group);
        producer.setSendMsgTimeout(10_000);
        producer.setRetryTimesWhenSendAsyncFailed(3);
        producer.start();
        return producer;
    }

    /** A push consumer of {@code topic} from its first offset; the caller registers the listener before this starts it. */
    public DefaultMQPushConsumer startConsumer(String group, String topic, int threads, int batch, MessageListenerConcurrently listener)
        throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName(instance + "-" + group);
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.setConsumeMessageBatchMaxSize(batch);
        consumer.setPullBatchSize(32);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener(listener);
        consumer.start();
        return consumer;
    }

    /**
     * Async sends with at most {@code window} outstanding; a failed send (after the client's own retries) is counted
     * and its message is then simply missing at the consumer. {@link #send} is called from one sending thread.
     */
    static final class AsyncSender {
        private final DefaultMQProducer producer;
        private final int window;
        private final Semaphore inFlight;
        final LongAdder ok = new LongAdder();
        final LongAdder failed = new LongAdder();
        private volatile String firstError;

        AsyncSender(DefaultMQProducer producer, int window) {
            this.producer = producer;
            this.window = window;
            this.inFlight = new Semaphore(window);
        }

        void send(Message msg) throws InterruptedException {
            send(msg, null, 0);
        }

        /** Sends; when the send fails, {@code lateness} learns that {@code sequence} was never sent. */
        void send(Message msg, Lateness lateness, long sequence) throws InterruptedException {
            inFlight.acquire();
            try {
                producer.send(msg, new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        ok.increment();
                        inFlight.release();
                    }

                    @Override
                    public void onException(Throwable e) {
                        fail(e, lateness, sequence);
                    }
                });
            } catch (Exception e) {
                fail(e, lateness, sequence);
            }
        }

        private void fail(Throwable e, Lateness lateness, long sequence) {
            if (lateness != null) {
                lateness.markUnsent(sequence);
            }
            if (firstError == null) {
                firstError = String.valueOf(e);
            }
            failed.increment();
            inFlight.release();
        }

        /** Waits until every send was answered. */
        void drain() throws InterruptedException {
            inFlight.acquire(window);
            inFlight.release(window);
        }

        String firstError() {
            return firstError;
        }
    }

    /** Open-loop pacing at a fixed rate: the i-th call returns at {@code start + i / rate}. One thread. */
    static final class Pacer {
        private final long startNanos = System.nanoTime();
        private final double intervalNanos;
        private long n;

        Pacer(double ratePerSecond) {
            this.intervalNanos = 1e9 / ratePerSecond;
        }

        void awaitNext() {
            long target = startNanos + (long) (n++ * intervalNanos);
            long wait;
            while ((wait = target - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }
}
