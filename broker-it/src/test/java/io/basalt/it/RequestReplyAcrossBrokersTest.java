package io.basalt.it;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.basalt.common.test.LeakCheckExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request-reply in a cluster of two brokers behind a real RocketMQ 5.2.0 NameServer (in this JVM): the
 * replier's producer spreads the replies over the reply topic's queues on both brokers, and each broker
 * pushes its replies to the requester, which heartbeats to both because its request topic is on both.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class RequestReplyAcrossBrokersTest {
    private static final String REPLY_TOPIC = "DefaultCluster_REPLY_TOPIC";
    private static final String REQUEST_TOPIC = "RequestAcross";

    @TempDir
    Path dir;
    final List<Runnable> cleanups = new ArrayList<>();

    @AfterEach
    void stop() {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).run();
        }
    }

    private String startNameServer() throws Exception {
        RocketMqNameServer nameServer = RocketMqNameServer.start(dir);
        cleanups.add(nameServer::close);
        return nameServer.address();
    }

    private BrokerProcess startBroker(String name, String namesrv) throws Exception {
        BrokerProcess broker = BrokerProcess.create(dir.resolve(name), Map.of("brokerName", name, "namesrvAddr", namesrv,
            "registerNameServerPeriod", "10000"));
        cleanups.add(() -> {
            try {
                broker.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        broker.start();
        return broker;
    }

    private DefaultMQProducer producer(String group, String namesrv) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setPollNameServerInterval(1000);
        p.start();
        cleanups.add(p::shutdown);
        return p;
    }

    @Test
    void repliesThroughEitherBrokerReachTheRequester() throws Exception {
        String namesrv = startNameServer();
        BrokerProcess a = startBroker("broker-a", namesrv);
        BrokerProcess b = startBroker("broker-b", namesrv);
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        cleanups.add(admin::shutdown);
        await().atMost(ofSeconds(30)).until(() -> admin.examineBrokerClusterInfo().getBrokerAddrTable().keySet()
            .equals(Set.of("broker-a", "broker-b")));
        for (BrokerProcess broker : List.of(a, b)) {
            admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(REQUEST_TOPIC, 2, 2, 6));
        }
        // the brokers create the reply topic at start; the NameServer learns of the request topic at their next registration
        await().atMost(ofSeconds(30)).ignoreExceptions().until(() -> admin.examineTopicRouteInfo(REPLY_TOPIC).getQueueDatas().size() == 2
            && admin.examineTopicRouteInfo(REQUEST_TOPIC).getQueueDatas().size() == 2);

        BlockingQueue<Object> replySends = new LinkedBlockingQueue<>();
        AtomicInteger repliesSent = new AtomicInteger();
        DefaultMQProducer replyProducer = producer("pg-replier", namesrv);
        DefaultMQPushConsumer replier = new DefaultMQPushConsumer("cg-replier");
        replier.setNamesrvAddr(namesrv);
        replier.setInstanceName(Clients.instanceName());
        replier.setPollNameServerInterval(1000);
        replier.setHeartbeatBrokerInterval(1000);
        replier.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        replier.subscribe(REQUEST_TOPIC, "*");
        replier.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt request : msgs) {
                try {
                    byte[] body = ("re:" + new String(request.getBody(), StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.UTF_8);
                    // each reply goes to the other broker than the one before: the client's own queue choice may
                    // skip a broker whose first send was slow (its latency fault tolerance), which is not under test
                    int n = repliesSent.getAndIncrement();
                    MessageQueue queue = replyProducer.fetchPublishMessageQueues(REPLY_TOPIC).stream()
                        .filter(q -> q.getBrokerName().equals(n % 2 == 0 ? "broker-a" : "broker-b"))
                        .findFirst().orElseThrow();
                    replySends.add(replyProducer.send(MessageUtil.createReplyMessage(request, body), queue));
                } catch (Exception e) {
                    replySends.add(e);
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        replier.start();
        cleanups.add(replier::shutdown);
        DefaultMQProducer requester = producer("pg-requester", namesrv);

        Set<String> replyBrokers = new TreeSet<>();
        for (int i = 0; i < 4; i++) {
            Message reply = requester.request(new Message(REQUEST_TOPIC, ("q" + i).getBytes(StandardCharsets.UTF_8)),
                20_000);
            assertEquals("re:q" + i, new String(reply.getBody(), StandardCharsets.UTF_8));
            SendResult sent = assertInstanceOf(SendResult.class, replySends.poll(30, TimeUnit.SECONDS));
            replyBrokers.add(sent.getMessageQueue().getBrokerName());
        }
        // the replies went through both brokers and each reached the requester
        assertEquals(Set.of("broker-a", "broker-b"), replyBrokers);
    }
}
