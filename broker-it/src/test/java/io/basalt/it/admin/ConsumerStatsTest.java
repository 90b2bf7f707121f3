package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.body.Connection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code mqadmin consumerProgress} and {@code consumerConnection} show of a consuming group, through
 * DefaultMQAdminExt 5.2.0: a consume TPS above zero while it consumes, and each client's language and version.
 */
class ConsumerStatsTest {
    private static final String TOPIC = "ConsumerStatsTopic";
    private static final String GROUP = "cg-consumer-stats";

    @TempDir
    Path dir;

    @Test
    void aConsumingGroupHasAConsumeTpsAndItsClientsLanguageAndVersion() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-consumer-stats");
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(GROUP);
            try {
                for (int i = 0; i < 50; i++) {
                    Message m = new Message(TOPIC, "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                    assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
                }
                Set<String> received = ConcurrentHashMap.newKeySet();
                consumer.setNamesrvAddr(broker.address());
                consumer.setInstanceName(AdminClients.instanceName());
                consumer.setPollNameServerInterval(1000);
                consumer.setHeartbeatBrokerInterval(1000);
                consumer.setPersistConsumerOffsetInterval(1000);
                consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                consumer.subscribe(TOPIC, "*");
                consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                    msgs.forEach(m -> received.add(m.getKeys()));
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                consumer.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 50);

                // the broker samples its minute window every 10 s: the delivered messages show within one interval
                await().atMost(Duration.ofSeconds(40)).until(() -> admin.examineConsumeStats(GROUP).getConsumeTps() > 0);

                ConsumerConnection connection = admin.examineConsumerConnectionInfo(GROUP);
                assertFalse(connection.getConnectionSet().isEmpty());
                for (Connection c : connection.getConnectionSet()) {
                    assertEquals(LanguageCode.JAVA, c.getLanguage(), c.getClientId());
                    assertEquals(MQVersion.Version.V5_2_0.ordinal(), c.getVersion(), c.getClientId());
                }
            } finally {
                consumer.shutdown();
                admin.shutdown();
                producer.shutdown();
            }
        }
    }
}
