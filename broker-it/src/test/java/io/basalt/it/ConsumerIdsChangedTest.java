package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Set;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When a consumer joins a group, the broker tells the members already there (NOTIFY_CONSUMER_IDS_CHANGED). */
class ConsumerIdsChangedTest {
    @TempDir
    Path dir;

    private static RemotingCommand heartbeat(String clientId) {
        HeartbeatData data = new HeartbeatData();
        data.setClientID(clientId);
        ConsumerData consumer = new ConsumerData();
        consumer.setGroupName("cg-notify");
        consumer.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        consumer.setMessageModel(MessageModel.CLUSTERING);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        SubscriptionData sub = new SubscriptionData("NotifyTopic", "*");
        consumer.setSubscriptionDataSet(Set.of(sub));
        data.getConsumerDataSet().add(consumer);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
        request.setBody(data.encode());
        return request;
    }

    @Test
    void aJoiningConsumerMakesTheBrokerNotifyTheGroup() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        NettyRemotingClient first = new NettyRemotingClient(new NettyClientConfig());
        NettyRemotingClient second = new NettyRemotingClient(new NettyClientConfig());
        java.util.concurrent.atomic.AtomicInteger notified = new java.util.concurrent.atomic.AtomicInteger();
        first.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, new NettyRequestProcessor() {
            @Override
            public RemotingCommand processRequest(io.netty.channel.ChannelHandlerContext ctx, RemotingCommand request) {
                if ("cg-notify".equals(request.getExtFields().get("consumerGroup"))) {
                    notified.incrementAndGet();
                }
                return null;
            }

            @Override
            public boolean rejectRequest() {
                return false;
            }
        }, executor);
        try (BrokerProcess broker = BrokerProcess.start(dir)) {
            first.start();
            second.start();
            assertEquals(ResponseCode.SUCCESS, first.invokeSync(broker.address(), heartbeat("127.0.0.1@first"), 10_000).getCode());
            // As RocketMQ does, the group is told of every join, the joining member included.
            await().atMost(Duration.ofSeconds(30)).until(() -> notified.get() == 1);
            assertEquals(ResponseCode.SUCCESS, first.invokeSync(broker.address(), heartbeat("127.0.0.1@first"), 10_000).getCode());
            assertEquals(ResponseCode.SUCCESS, second.invokeSync(broker.address(), heartbeat("127.0.0.1@second"), 10_000).getCode());
            await().atMost(Duration.ofSeconds(30)).until(() -> notified.get() == 2);
        } finally {
            first.shutdown();
            second.shutdown();
            executor.shutdownNow();
        }
    }
}
