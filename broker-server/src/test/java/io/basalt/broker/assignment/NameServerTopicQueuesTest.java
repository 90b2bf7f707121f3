package io.basalt.broker.assignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.protocol.MessageQueue;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A broker behind NameServers allocates over the topic's route as a NameServer answers it (RocketMQ's classes). */
class NameServerTopicQueuesTest {
    private NettyRemotingServer nameServer;
    private RequestExecutor executor;
    private String address;
    private final AtomicInteger asked = new AtomicInteger();
    private final AtomicLong clock = new AtomicLong(1_000_000);

    @BeforeEach
    void startFakeNameServer() {
        nameServer = new NettyRemotingServer(new NettyServerConfig("127.0.0.1", 0, 1, 1 << 20, 0, 1_000, true));
        executor = RequestExecutor.create("FakeNameServerThread_", 1, 64, 0);
        nameServer.registerProcessor(RequestCode.GET_ROUTEINFO_BY_TOPIC, (ctx, request) -> {
            asked.incrementAndGet();
            if (!"T".equals(request.extFields().get("topic"))) {
                return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST,
                    "No topic route info in name server for the topic"));
            }
            TopicRouteData route = new TopicRouteData();
            QueueData a = new QueueData();
            a.setBrokerName("broker-a");
            a.setReadQueueNums(2);
            a.setPerm(PermName.PERM_READ | PermName.PERM_WRITE);
            QueueData b = new QueueData();
            b.setBrokerName("broker-b");
            b.setReadQueueNums(1);
            b.setPerm(PermName.PERM_READ);
            route.setQueueDatas(List.of(a, b));
            route.setBrokerDatas(List.of());
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(route.encode());
            return CompletableFuture.completedFuture(response);
        }, executor);
        nameServer.start();
        address = "127.0.0.1:" + nameServer.localPort();
    }

    @AfterEach
    void stop() throws InterruptedException {
        nameServer.shutdown();
        executor.shutdown(5_000);
    }

    private NameServerTopicQueues queues(List<String> nameServers) {
        return new NameServerTopicQueues(nameServers, () -> new NettyRemotingClient(NettyClientConfig.defaults()), 3_000,
            clock::get);
    }

    @Test
    void theRouteOfEveryBrokerIsAskedOnceAndKeptThirtySeconds() throws Exception {
        NameServerTopicQueues queues = queues(List.of(address));
        List<MessageQueue> expected = List.of(new MessageQueue("T", "broker-a", 0), new MessageQueue("T", "broker-a", 1),
            new MessageQueue("T", "broker-b", 0));
        assertEquals(Optional.of(expected), queues.readableQueues("T"));
        clock.addAndGet(NameServerTopicQueues.ROUTE_TTL_MS - 1);
        assertEquals(Optional.of(expected), queues.readableQueues("T"));
        assertEquals(1, asked.get());
        clock.addAndGet(1);
        queues.readableQueues("T");
        assertEquals(2, asked.get(), "asked again once the route is 30 s old");
    }

    @Test
    void aTopicWithoutRouteIsEmptyAndNoAnswerIsAnErrorNamingTheTopic() throws Exception {
        assertEquals(Optional.empty(), queues(List.of(address)).readableQueues("Missing"));
        String closed = "127.0.0.1:1";
        TopicQueues.RouteUnavailableException e = assertThrows(TopicQueues.RouteUnavailableException.class,
            () -> queues(List.of(closed)).readableQueues("T"));
        assertTrue(e.getMessage().contains("topic T") && e.getMessage().contains(closed), e.getMessage());
        assertEquals(Optional.of(3), queues(List.of(closed, address)).readableQueues("T").map(List::size),
            "the next NameServer answers");
    }
}
