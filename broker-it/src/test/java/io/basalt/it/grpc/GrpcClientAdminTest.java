package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.MqAdmin;
import io.basalt.it.metrics.PrometheusText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.body.CMResult;
import org.apache.rocketmq.remoting.protocol.body.Connection;
import org.apache.rocketmq.remoting.protocol.body.ConsumeMessageDirectlyResult;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 5.x SDK consumers (rocketmq-client-java 5.0.7) as the official 5.2.0 admin tools see them on a Basalt broker: listed
 * by consumerConnection with their subscription, asked for their thread stack by consumerStatus, reached by
 * consumeMessage, counted by protocol in the metrics and on the status page, and gone from the listing once they
 * shut down.
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client the class's tests share keeps its remoting client for the whole class")
class GrpcClientAdminTest {
    static final String TOPIC = "GrpcAdminTopic";
    @TempDir
    static Path dir;
    static GrpcBroker grpc;
    static BrokerProcess broker;
    static DefaultMQAdminExt admin;
    static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();
    final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void startBroker() throws Exception {
        grpc = GrpcBroker.start(dir.resolve("broker"), Map.of());
        broker = grpc.process;
        admin = grpc.admin;
        grpc.createTopic(TOPIC, 2, "NORMAL");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (grpc != null) {
            grpc.close();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private ClientConfiguration configuration() {
        return grpc.configuration(false);
    }

    private PushConsumer pushConsumer(String group, String tag, Set<String> received) throws Exception {
        PushConsumer push = PROVIDER.newPushConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup(group).setSubscriptionExpressions(Map.of(TOPIC, new FilterExpression(tag)))
            .setMessageListener(m -> {
                received.add(StandardCharsets.UTF_8.decode(m.getBody().duplicate()).toString());
                return ConsumeResult.SUCCESS;
            }).build();
        closing.add(push);
        return push;
    }

    private static ConsumerConnection connectionOf(String group) throws Exception {
        return await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> admin.examineConsumerConnectionInfo(group), c -> !c.getConnectionSet().isEmpty());
    }

    @Test
    void pushConsumerIsListedWithItsSubscriptionAndLeavesOnShutdown() throws Exception {
        PushConsumer push = pushConsumer("GrpcAdminPushGroup", "TagA", ConcurrentHashMap.newKeySet());
        ConsumerConnection cc = connectionOf("GrpcAdminPushGroup");
        assertEquals(1, cc.getConnectionSet().size());
        Connection c = cc.getConnectionSet().iterator().next();
        assertEquals(LanguageCode.JAVA, c.getLanguage());
        assertEquals(org.apache.rocketmq.common.MQVersion.Version.V5_0_7.ordinal(), c.getVersion());
        assertTrue(c.getClientAddr().startsWith("127.0.0.1:"), c.getClientAddr());
        assertEquals(ConsumeType.CONSUME_PASSIVELY, cc.getConsumeType());
        assertEquals(MessageModel.CLUSTERING, cc.getMessageModel());
        SubscriptionData sub = cc.getSubscriptionTable().get(TOPIC);
        assertNotNull(sub, "subscriptions: " + cc.getSubscriptionTable());
        assertEquals("TagA", sub.getSubString());
        assertEquals(Set.of("TagA"), sub.getTagsSet());

        String listed = MqAdmin.run("consumerConnection", "-n", broker.address(), "-g", "GrpcAdminPushGroup");
        assertTrue(listed.contains(c.getClientId()) && listed.contains("TagA") && listed.contains("CONSUME_PASSIVELY"),
            listed);

        push.close();
        closing.remove(push);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            try {
                return admin.examineConsumerConnectionInfo("GrpcAdminPushGroup").getConnectionSet().isEmpty();
            } catch (Exception notOnline) {
                return true;
            }
        });
    }

    @Test
    void simpleConsumerIsListedAsConsumingActively() throws Exception {
        SimpleConsumer simple = PROVIDER.newSimpleConsumerBuilder().setClientConfiguration(configuration())
            .setConsumerGroup("GrpcAdminSimpleGroup").setSubscriptionExpressions(Map.of(TOPIC, FilterExpression.SUB_ALL))
            .setAwaitDuration(Duration.ofSeconds(5)).build();
        closing.add(simple);
        ConsumerConnection cc = connectionOf("GrpcAdminSimpleGroup");
        assertEquals(ConsumeType.CONSUME_ACTIVELY, cc.getConsumeType());
        assertEquals("*", cc.getSubscriptionTable().get(TOPIC).getSubString());
    }

    /** Telemetry handshakes the broker answered OK, from its metrics. */
    private static long telemetrySettingsAnswered() throws Exception {
        return PrometheusText.scrape(broker.metricsPort())
            .samples("basalt_grpc_responses_total", Map.of("rpc", "Telemetry", "code", "OK"))
            .stream().mapToLong(sample -> (long) sample.value()).sum();
    }

    /**
     * Waits until the client's second settings handshake was answered. The 5.0.7 SDK writes its first periodic
     * settings sync on the Telemetry stream one second after it starts, from its scheduler thread, and its replies to
     * pushed commands from its command thread, without serializing the two writes on the stream (later SDKs do): a
     * reply written at that moment can be lost, and the admin call then times out. Commands are pushed after it.
     */
    private static void awaitFirstSettingsSync(long answeredBefore) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(GrpcClientAdminTest::telemetrySettingsAnswered, n -> n >= answeredBefore + 2);
    }

    @Test
    void consumerStatusReturnsTheClientsThreadStack() throws Exception {
        long answered = telemetrySettingsAnswered();
        pushConsumer("GrpcAdminStackGroup", "*", ConcurrentHashMap.newKeySet());
        String clientId = connectionOf("GrpcAdminStackGroup").getConnectionSet().iterator().next().getClientId();
        awaitFirstSettingsSync(answered);
        ConsumerRunningInfo info = admin.getConsumerRunningInfo("GrpcAdminStackGroup", clientId, true);
        assertNotNull(info.getJstack());
        assertFalse(info.getJstack().isBlank());
        assertEquals("CONSUME_PASSIVELY", info.getProperties().getProperty(ConsumerRunningInfo.PROP_CONSUME_TYPE));
        // the SDK's stack dump: one "<name> TID: <id> STATE: <state>" line per thread
        assertTrue(info.getJstack().contains("TID: ") && info.getJstack().contains("STATE: "), info.getJstack());

        String status = MqAdmin.run("consumerStatus", "-n", broker.address(), "-g", "GrpcAdminStackGroup", "-i",
            clientId, "-s");
        assertTrue(status.contains("#Consumer jstack#") && status.contains("TID: "), status);
    }

    @Test
    void metricsAndStatusPageCountGrpcConsumersByProtocol() throws Exception {
        pushConsumer("GrpcAdminMetricsGroup", "*", ConcurrentHashMap.newKeySet());
        connectionOf("GrpcAdminMetricsGroup");
        String metrics = get("/metrics");
        List<String> rows = metrics.lines().filter(l -> l.startsWith("rocketmq_consumer_connections{")
            && l.contains("consumer_group=\"GrpcAdminMetricsGroup\"")).toList();
        assertEquals(1, rows.size(), metrics);
        assertTrue(rows.get(0).contains("protocol_type=\"grpc\"") && rows.get(0).contains("consume_mode=\"push\"")
            && rows.get(0).endsWith(" 1.0"), rows.get(0));
        String status = get("/status.json");
        assertTrue(status.contains("{\"kind\":\"consumer\",\"group\":\"GrpcAdminMetricsGroup\",\"protocol\":\"grpc\","
            + "\"clients\":1}"), status);
    }

    /** GET over plain HTTP/1.0 (java.net.http's client leaves a selector thread behind). */
    private static String get(String path) throws Exception {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", broker.metricsPort()), 2_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(response.startsWith("HTTP/1.") && response.contains(" 200 "), response);
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    @Test
    void consumeMessageRunsThePushConsumersListenerOnTheStoredMessage() throws Exception {
        Set<String> received = ConcurrentHashMap.newKeySet();
        long answered = telemetrySettingsAnswered();
        // subscribed to a tag nothing is sent with: the message reaches the listener only through consumeMessage
        pushConsumer("GrpcAdminDirectGroup", "NoSuchTag", received);
        String clientId = connectionOf("GrpcAdminDirectGroup").getConnectionSet().iterator().next().getClientId();
        awaitFirstSettingsSync(answered);
        DefaultMQProducer producer = new DefaultMQProducer("GrpcAdminRemotingProducer");
        producer.setNamesrvAddr(broker.address());
        producer.setInstanceName(Clients.instanceName());
        producer.start();
        SendResult sent;
        try {
            sent = producer.send(new Message(TOPIC, "TagB", "direct".getBytes(StandardCharsets.UTF_8)));
        } finally {
            producer.shutdown();
        }
        ConsumeMessageDirectlyResult result = admin.consumeMessageDirectly("GrpcAdminDirectGroup", clientId, TOPIC,
            sent.getOffsetMsgId());
        assertEquals(CMResult.CR_SUCCESS, result.getConsumeResult());
        assertEquals(Set.of("direct"), received);
    }
}
