package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.RocketMqNameServer;
import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Basalt broker joins a real Apache RocketMQ 5.2.0 NameServer (in this JVM): it registers, its topics
 * are routed to clients that only know the NameServer, and it unregisters when it stops.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class NameServerRegistrationTest {
    @TempDir
    Path dir;
    RocketMqNameServer nameServer;
    String nameServerAddress;
    final List<AutoCloseable> cleanups = new ArrayList<>();

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
        nameServerAddress = nameServer.address();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        nameServer.close();
    }

    private static BrokerData registered(DefaultMQAdminExt admin) throws Exception {
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        Set<String> members = cluster.getClusterAddrTable().get("DefaultCluster");
        return members != null && members.contains("broker-a") ? cluster.getBrokerAddrTable().get("broker-a") : null;
    }

    @Test
    void clientsThatOnlyKnowTheNameServerAreServedAndTheBrokerLeavesOnShutdown() throws Exception {
        BrokerHandle broker = BrokerHandle.start(dir.resolve("broker"),
            Map.of("namesrvAddr", nameServerAddress, "registerNameServerPeriod", "60000"));
        cleanups.add(broker);
        DefaultMQAdminExt admin = AdminClients.admin(nameServerAddress);
        cleanups.add(admin::shutdown);

        BrokerData data = await().atMost(Duration.ofSeconds(30)).until(() -> registered(admin), d -> d != null);
        assertEquals(broker.address(), data.getBrokerAddrs().get(0L), data.toString());

        // a topic created on the broker is registered at once, not only at the next period (60 s here)
        admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig("NsRouted", 2, 2, 6));
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
            .until(() -> admin.examineTopicRouteInfo("NsRouted").getQueueDatas().get(0).getWriteQueueNums() == 2);

        // so is one a send auto-creates (the producer reaches the broker through TBW102's route)
        DefaultMQProducer producer = AdminClients.producer(nameServerAddress, "pg-namesrv");
        cleanups.add(producer::shutdown);
        assertEquals(SendStatus.SEND_OK, producer.send(new Message("NsAuto", "auto".getBytes(StandardCharsets.UTF_8)))
            .getSendStatus());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
            .until(() -> !admin.examineTopicRouteInfo("NsAuto").getQueueDatas().isEmpty());

        for (int i = 0; i < 10; i++) {
            SendResult r = producer.send(new Message("NsRouted", "TagA", "ns-" + i, ("ns-body-" + i).getBytes(StandardCharsets.UTF_8)));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        }
        DefaultLitePullConsumer consumer = AdminClients.litePull(nameServerAddress, "cg-namesrv", "NsRouted");
        cleanups.add(consumer::shutdown);
        List<MessageExt> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            got.addAll(consumer.poll(500));
            return got.size() >= 10;
        });
        assertEquals(Set.of("ns-0", "ns-1", "ns-2", "ns-3", "ns-4", "ns-5", "ns-6", "ns-7", "ns-8", "ns-9"),
            got.stream().map(MessageExt::getKeys).collect(Collectors.toSet()));

        // the consumer goes first: a 5.2.0 lite pull consumer whose broker is gone may still be retrying a pull
        // when it shuts down, and its pull thread then outlives the test
        consumer.shutdown();
        broker.stopGracefully();
        await().atMost(Duration.ofSeconds(30)).until(() -> registered(admin) == null);
    }
}
