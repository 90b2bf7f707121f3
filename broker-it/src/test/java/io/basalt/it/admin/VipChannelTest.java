package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocketMQ's VIP channel: a Basalt broker listens on {@code listenPort − 2} too, by default, and serves clients with
 * {@code vipChannelEnabled=true} there (the official client's sends then go to that port).
 */
class VipChannelTest {
    @TempDir
    Path dir;

    /** Remembers where the client sent each request code. */
    static final class Destinations implements RPCHook {
        final Map<Integer, Set<String>> byCode = new ConcurrentHashMap<>();

        @Override
        public void doBeforeRequest(String remoteAddr, RemotingCommand request) {
            byCode.computeIfAbsent(request.getCode(), c -> ConcurrentHashMap.newKeySet()).add(remoteAddr);
        }

        @Override
        public void doAfterResponse(String remoteAddr, RemotingCommand request, RemotingCommand response) {
        }
    }

    @Test
    void clientsWithTheVipChannelSendAndConsumeThroughListenPortMinusTwo() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            String addr = broker.address();
            int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
            String vip = "127.0.0.1:" + (port - 2);
            DefaultMQAdminExt admin = AdminClients.admin(addr);
            try {
                admin.createAndUpdateTopicConfig(addr, new TopicConfig("VipTopic", 2, 2, 6));
            } finally {
                admin.shutdown();
            }

            Destinations sends = new Destinations();
            DefaultMQProducer producer = new DefaultMQProducer("pg-vip", sends);
            producer.setNamesrvAddr(addr);
            producer.setInstanceName(AdminClients.instanceName());
            producer.setVipChannelEnabled(true);
            producer.start();
            Destinations pulls = new Destinations();
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("cg-vip", pulls);
            List<MessageExt> got = new CopyOnWriteArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    SendResult r = producer.send(new Message("VipTopic", ("vip-" + i).getBytes(StandardCharsets.UTF_8)));
                    assertEquals(SendStatus.SEND_OK, r.getSendStatus());
                }
                Set<String> sentTo = sends.byCode.getOrDefault(RequestCode.SEND_MESSAGE_V2, Set.of());
                assertEquals(Set.of(vip), sentTo, "the sends went to the VIP port " + vip + ": " + sends.byCode);

                consumer.setNamesrvAddr(addr);
                consumer.setInstanceName(AdminClients.instanceName());
                consumer.setVipChannelEnabled(true);
                consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                consumer.subscribe("VipTopic", "*");
                consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    got.addAll(msgs);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                consumer.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> got.size() >= 4);
                assertTrue(got.stream().allMatch(m -> new String(m.getBody(), StandardCharsets.UTF_8).startsWith("vip-")));
                assertTrue(pulls.byCode.containsKey(RequestCode.PULL_MESSAGE), pulls.byCode.toString());
            } finally {
                consumer.shutdown();
                producer.shutdown();
            }
        }
    }
}
