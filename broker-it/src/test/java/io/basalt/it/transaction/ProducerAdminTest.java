package io.basalt.it.transaction;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.Clients;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.ProducerInfo;
import org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.remoting.protocol.heartbeat.ProducerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official 5.2.0 {@code mqadmin producerConnection} and {@code mqadmin producer} against a broker process:
 * they list a running transactional producer of the group with its client id (the broker learnt it from the
 * producer's heartbeats, and back-checks of the group go to such connections), and no longer once it has shut down
 * or its connection has closed.
 */
class ProducerAdminTest {
    private static final String GROUP = "pg-tx-admin";
    private static final String TOPIC = "TxAdminTopic";

    @TempDir
    Path dir;

    @Test
    void theAdminToolListsARunningProducerOfTheGroupAndForgetsItAfterShutdown() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            String created = MqAdmin.run("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", TOPIC,
                "-r", "2", "-w", "2");
            assertTrue(created.contains("success"), created);

            TransactionMQProducer producer = new TransactionMQProducer(GROUP);
            producer.setNamesrvAddr(broker.address());
            producer.setInstanceName(Clients.instanceName());
            producer.setSendMsgTimeout(10_000);
            producer.setPollNameServerInterval(1000);
            producer.setHeartbeatBrokerInterval(1000);
            producer.setTransactionListener(new CommitAll());
            producer.start();
            String clientId = producer.buildMQClientId();
            boolean shutDown = false;
            try {
                // a producer heartbeats to the brokers of the topics it has sent to
                assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "tag", "k",
                    "plain".getBytes(StandardCharsets.UTF_8))).getSendStatus());

                AtomicReference<String> listed = new AtomicReference<>("");
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                    listed.set(MqAdmin.run("producerConnection", "-n", broker.address(), "-g", GROUP, "-t", TOPIC));
                    return listed.get().contains(clientId);
                });
                String line = listed.get().lines().filter(l -> l.contains(clientId)).findFirst().orElseThrow();
                assertTrue(line.startsWith("0001  " + clientId), line);
                assertTrue(line.contains(" 127.0.0.1:"), "the client's address, ip:port: " + line);
                assertTrue(line.contains(" JAVA "), line);
                assertTrue(line.trim().endsWith("V5_2_0"), "the version the client's heartbeat carried: " + line);
                assertFalse(listed.get().contains("Exception"), listed.get());

                String all = MqAdmin.run("producer", "-n", broker.address(), "-b", broker.address());
                String instance = all.lines().filter(l -> l.startsWith("producer group (" + GROUP + ") instance : "))
                    .findFirst().orElseThrow(() -> new AssertionError(all));
                assertTrue(instance.contains("clientId=" + clientId + ","), instance);
                assertTrue(instance.contains("remoteIP=/127.0.0.1:"), "RocketMQ prints the socket address: " + instance);
                assertTrue(instance.contains("language=JAVA"), instance);
                assertTrue(instance.contains("version=453"), instance);
                assertFalse(all.contains("Exception"), all);

                producer.shutdown();
                shutDown = true;
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).until(() ->
                    !MqAdmin.run("producer", "-n", broker.address(), "-b", broker.address()).contains(clientId));
                String gone = MqAdmin.run("producerConnection", "-n", broker.address(), "-g", GROUP, "-t", TOPIC);
                assertFalse(gone.contains(clientId), gone);
                assertTrue(gone.contains("the producer group[" + GROUP + "] not exist"), "RocketMQ's answer: " + gone);
            } finally {
                if (!shutDown) {
                    producer.shutdown();
                }
            }
        }
    }

    @Test
    void aProducerWhoseConnectionDropsIsForgottenWithoutWaitingForTheExpiry() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            // a producer that heartbeats once and then loses its connection without unregistering
            NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
            client.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(broker.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                HeartbeatData heartbeat = new HeartbeatData();
                heartbeat.setClientID("10.0.0.9@dropped");
                ProducerData producer = new ProducerData();
                producer.setGroupName(GROUP);
                heartbeat.getProducerDataSet().add(producer);
                RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
                request.setBody(heartbeat.encode());
                assertEquals(ResponseCode.SUCCESS, client.invokeSync(broker.address(), request, 10_000).getCode());

                List<ProducerInfo> listed = admin.getAllProducerInfo(broker.address()).getData().get(GROUP);
                assertEquals(1, listed.size(), String.valueOf(listed));
                assertEquals("10.0.0.9@dropped", listed.get(0).getClientId());

                client.closeChannels(List.of(broker.address()));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() ->
                    !admin.getAllProducerInfo(broker.address()).getData().containsKey(GROUP));
            } finally {
                admin.shutdown();
                client.shutdown();
            }
        }
    }

    /** Commits every transaction; nothing here sends one, the producer only has to be a transactional one. */
    private static final class CommitAll implements TransactionListener {
        @Override
        public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }

        @Override
        public LocalTransactionState checkLocalTransaction(MessageExt msg) {
            return LocalTransactionState.COMMIT_MESSAGE;
        }
    }
}
