package io.basalt.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * One of two brokers that take turns on one store directory: a Basalt broker ({@link BrokerProcess}) or the real
 * RocketMQ 5.2.0 broker ({@link RocketMqBrokerProcess}) keeping its store where the Basalt one keeps it
 * ({@code <dir>/basalt/store}). Both launchers write the same file sizes (CommitLog and consume queue mapped files,
 * index), so either broker opens what the other wrote. The Basalt broker is its own name server; the RocketMQ one
 * registers with a {@link RocketMqNameServer} every 10 s (its default, 30 s, would keep a new client waiting for
 * routes).
 */
public interface StoreSide extends AutoCloseable {
    void start() throws Exception;

    /** What clients put in namesrvAddr to reach this broker. */
    String namesrvAddr();

    String brokerAddr();

    void stopGracefully() throws Exception;

    /** The broker's output (and log tail), for a failure message. */
    String describe() throws Exception;

    @Override
    void close() throws Exception;

    /**
     * Creates {@code topic} with {@code queues} read and write queues on this broker and waits until its route is
     * served (for RocketMQ: until the broker's next registration reached the name server).
     */
    default void createTopic(String topic, int queues) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrvAddr());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            // a broker just started on a loaded machine may answer its first admin request late
            await().atMost(Duration.ofSeconds(40)).ignoreExceptions()
                .until(() -> {
                    admin.createAndUpdateTopicConfig(brokerAddr(), new TopicConfig(topic, queues, queues, 6));
                    return true;
                });
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> !admin.examineTopicRouteInfo(topic).getQueueDatas().isEmpty());
        } finally {
            admin.shutdown();
        }
    }

    /** A Basalt broker in {@code dir/basalt} with its store in {@code dir/basalt/store}; not started. */
    static StoreSide basalt(Path dir, Map<String, String> settings) throws IOException {
        BrokerProcess broker = BrokerProcess.create(dir.resolve("basalt"), settings);
        return new StoreSide() {
            @Override
            public void start() throws Exception {
                broker.start();
            }

            @Override
            public String namesrvAddr() {
                return broker.address();
            }

            @Override
            public String brokerAddr() {
                return broker.address();
            }

            @Override
            public void stopGracefully() throws Exception {
                broker.stopGracefully();
            }

            @Override
            public String describe() throws Exception {
                return "Basalt broker output:\n" + broker.output();
            }

            @Override
            public void close() throws Exception {
                broker.close();
            }
        };
    }

    /**
     * The real RocketMQ broker with its files in {@code dir/name}, keeping its store in {@code dir/basalt/store} (where
     * {@link #basalt} keeps it), registering with {@code nameServer}; not started.
     */
    static StoreSide rocketMq(Path dir, String name, RocketMqNameServer nameServer, Map<String, String> settings)
        throws IOException {
        Map<String, String> conf = new HashMap<>(settings);
        // RocketMQ's name-server registration period is 30 s; a new client must find the broker's topics soon
        conf.putIfAbsent("registerNameServerPeriod", "10000");
        RocketMqBrokerProcess broker = RocketMqBrokerProcess.create(dir.resolve(name), dir.resolve("basalt/store"),
            nameServer.address(), conf);
        return new StoreSide() {
            @Override
            public void start() throws Exception {
                broker.start();
            }

            @Override
            public String namesrvAddr() {
                return nameServer.address();
            }

            @Override
            public String brokerAddr() {
                return broker.address();
            }

            @Override
            public void stopGracefully() throws Exception {
                broker.stopGracefully();
            }

            @Override
            public String describe() throws Exception {
                String log = broker.brokerLog();
                return "RocketMQ broker output:\n" + broker.output() + "\nRocketMQ broker.log (tail):\n"
                    + (log.length() <= 6000 ? log : log.substring(log.length() - 6000));
            }

            @Override
            public void close() throws Exception {
                broker.close();
            }
        };
    }
}
