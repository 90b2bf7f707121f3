package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.it.BrokerHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.sysflag.PullSysFlag;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.remoting.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.remoting.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subscription group's {@code consumeBroadcastEnable} and {@code notifyConsumerIdsChangedEnable}, set with
 * DefaultMQAdminExt 5.2.0 and observed with RocketMQ's own remoting client: what the broker answers a
 * broadcasting consumer's pull, and which groups it tells of membership changes.
 */
class GroupSettingsTest {
    private static final String TOPIC = "GroupSettingsTopic";

    @TempDir
    Path dir;

    private static SubscriptionGroupConfig group(String name) {
        SubscriptionGroupConfig config = new SubscriptionGroupConfig();
        config.setGroupName(name);
        return config;
    }

    private static RemotingCommand heartbeat(String clientId, String group, MessageModel model) {
        HeartbeatData data = new HeartbeatData();
        data.setClientID(clientId);
        ConsumerData consumer = new ConsumerData();
        consumer.setGroupName(group);
        consumer.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        consumer.setMessageModel(model);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setSubscriptionDataSet(Set.of(new SubscriptionData(TOPIC, "*")));
        data.getConsumerDataSet().add(consumer);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
        request.setBody(data.encode());
        return request;
    }

    /** A push consumer's pull: no subscription in the request (the broker uses the heartbeat's), not suspended. */
    private static RemotingCommand pushPull(String group) {
        PullMessageRequestHeader header = new PullMessageRequestHeader();
        header.setConsumerGroup(group);
        header.setTopic(TOPIC);
        header.setQueueId(0);
        header.setQueueOffset(0L);
        header.setMaxMsgNums(32);
        header.setSysFlag(PullSysFlag.buildSysFlag(false, false, false, false));
        header.setCommitOffset(0L);
        header.setSuspendTimeoutMillis(0L);
        header.setSubVersion(0L);
        return RemotingCommand.createRequestCommand(RequestCode.PULL_MESSAGE, header);
    }

    @Test
    void aBroadcastingConsumerOfAGroupWithBroadcastDisabledIsRefusedWithNoPermission() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-group-settings");
            NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
            try {
                admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, 1, 1, 6));
                assertEquals(SendStatus.SEND_OK, producer.send(new Message(TOPIC, "TagA",
                    "body".getBytes(StandardCharsets.UTF_8))).getSendStatus());
                SubscriptionGroupConfig noBroadcast = group("cg-no-broadcast");
                noBroadcast.setConsumeBroadcastEnable(false);
                admin.createAndUpdateSubscriptionGroupConfig(broker.address(), noBroadcast);
                admin.createAndUpdateSubscriptionGroupConfig(broker.address(), group("cg-broadcast"));
                client.start();

                assertEquals(ResponseCode.SUCCESS, client.invokeSync(broker.address(),
                    heartbeat("127.0.0.1@bc", "cg-no-broadcast", MessageModel.BROADCASTING), 10_000).getCode());
                RemotingCommand refused = client.invokeSync(broker.address(), pushPull("cg-no-broadcast"), 10_000);
                assertEquals(ResponseCode.NO_PERMISSION, refused.getCode());
                assertEquals("the consumer group[cg-no-broadcast] can not consume by broadcast way", refused.getRemark());
                assertEquals("4", refused.getExtFields().get("forbiddenType"), "ForbiddenType.BROADCASTING_DISABLE_FORBIDDEN");

                // the same group consuming in clustering mode, and a group that allows broadcasting, read the message
                assertEquals(ResponseCode.SUCCESS, client.invokeSync(broker.address(),
                    heartbeat("127.0.0.1@bc", "cg-no-broadcast", MessageModel.CLUSTERING), 10_000).getCode());
                assertEquals(ResponseCode.SUCCESS,
                    client.invokeSync(broker.address(), pushPull("cg-no-broadcast"), 10_000).getCode());
                assertEquals(ResponseCode.SUCCESS, client.invokeSync(broker.address(),
                    heartbeat("127.0.0.1@bc", "cg-broadcast", MessageModel.BROADCASTING), 10_000).getCode());
                assertEquals(ResponseCode.SUCCESS,
                    client.invokeSync(broker.address(), pushPull("cg-broadcast"), 10_000).getCode());
            } finally {
                client.shutdown();
                producer.shutdown();
                admin.shutdown();
            }
        }
    }

    @Test
    void aGroupWithNotificationsDisabledIsNotToldOfJoins() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        NettyRemotingClient first = new NettyRemotingClient(new NettyClientConfig());
        NettyRemotingClient second = new NettyRemotingClient(new NettyClientConfig());
        Map<String, AtomicInteger> notified = new ConcurrentHashMap<>();
        first.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, new NettyRequestProcessor() {
            @Override
            public RemotingCommand processRequest(io.netty.channel.ChannelHandlerContext ctx, RemotingCommand request) {
                notified.computeIfAbsent(request.getExtFields().get("consumerGroup"), g -> new AtomicInteger()).incrementAndGet();
                return null;
            }

            @Override
            public boolean rejectRequest() {
                return false;
            }
        }, executor);
        try (BrokerHandle broker = BrokerHandle.start(dir, Map.of())) {
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            try {
                SubscriptionGroupConfig quiet = group("cg-quiet");
                quiet.setNotifyConsumerIdsChangedEnable(false);
                admin.createAndUpdateSubscriptionGroupConfig(broker.address(), quiet);
            } finally {
                admin.shutdown();
            }
            first.start();
            second.start();
            assertEquals(ResponseCode.SUCCESS, first.invokeSync(broker.address(),
                heartbeat("127.0.0.1@first", "cg-quiet", MessageModel.CLUSTERING), 10_000).getCode());
            assertEquals(ResponseCode.SUCCESS, second.invokeSync(broker.address(),
                heartbeat("127.0.0.1@second", "cg-quiet", MessageModel.CLUSTERING), 10_000).getCode());
            // a group with notifications on, joined afterwards over the same connection: its notification comes
            // after any the quiet group would have had, and the client handles them in order on one thread
            assertEquals(ResponseCode.SUCCESS, first.invokeSync(broker.address(),
                heartbeat("127.0.0.1@first", "cg-loud", MessageModel.CLUSTERING), 10_000).getCode());
            await().atMost(Duration.ofSeconds(30)).until(() -> notified.containsKey("cg-loud"));
            assertEquals(Map.of("cg-loud", 1), Map.copyOf(notified).entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get())));
        } finally {
            first.shutdown();
            second.shutdown();
            executor.shutdownNow();
        }
    }
}
