package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 5.x SDK transaction committed after the broker restarted between its send and its commit: the broker no longer
 * remembers where the half message is (RocketMQ's proxy forgets after 30 s), and finds it in the store by its
 * transaction id, so the commit takes effect.
 */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official admin client keeps its remoting client's response-scan pool until it shuts down")
class GrpcTransactionRestartTest {
    @TempDir
    Path dir;

    @Test
    void aCommitAfterABrokerRestartFindsItsHalfMessageInTheStore() throws Exception {
        // no back-check scan before the commit: only the store lookup can find the half message
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("broker"), Map.of("transactionCheckInterval", "600000"))) {
            broker.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt();
            admin.setNamesrvAddr(broker.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                admin.createTopic("DefaultCluster", "GrpcTxRestart", 4, Map.of("+message.type", "TRANSACTION"));
                await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> "TRANSACTION".equals(
                    admin.examineTopicConfig(broker.address(), "GrpcTxRestart").getAttributes().get("message.type")));
            } finally {
                admin.shutdown();
            }
            ClientServiceProvider provider = ClientServiceProvider.loadService();
            try (Producer producer = provider.newProducerBuilder().setClientConfiguration(ClientConfiguration.newBuilder()
                    .setEndpoints(broker.grpcAddress()).enableSsl(false).setRequestTimeout(Duration.ofSeconds(10)).build())
                .setTopics("GrpcTxRestart").setTransactionChecker(view -> TransactionResolution.UNKNOWN).build()) {
                Transaction tx = producer.beginTransaction();
                SendReceipt receipt = producer.send(provider.newMessageBuilder().setTopic("GrpcTxRestart")
                    .setBody("after the restart".getBytes(StandardCharsets.UTF_8)).build(), tx);

                broker.stopGracefully();
                broker.start();
                // the client reconnects on its own; the first attempts may meet the broker still starting
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                    tx.commit();
                    return true;
                });

                try (TopicReader reader = new TopicReader(broker.address(), "GrpcTxRestart", broker.brokerName(), 4)) {
                    List<MessageExt> read = new ArrayList<>();
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        read.addAll(reader.readNew());
                        return !read.isEmpty();
                    });
                    assertEquals("after the restart", new String(read.get(0).getBody(), StandardCharsets.UTF_8));
                    assertEquals(receipt.getMessageId().toString(), read.get(0).getMsgId());
                }
            }
        }
    }
}
