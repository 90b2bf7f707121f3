package io.basalt.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which address the client sends the leader's requests to: a Controller advertises its leader by the address its
 * nodes know each other by, which a broker behind port forwarding, NAT or a per-node proxy may not reach. The
 * configured entry that answers {@code isLeader=true} is used instead; an advertised address that is configured is
 * used as it is.
 */
class RemotingControllerClientAddressTest {
    /** TEST-NET-1 (RFC 5737): nothing answers there. */
    private static final String UNREACHABLE_ADVERTISED = "192.0.2.1:9878";

    private RequestExecutor executor;
    private final List<NettyRemotingServer> nodes = new ArrayList<>();
    private final List<AtomicInteger> nextIdRequests = new ArrayList<>();
    private final List<AtomicInteger> metadataRequests = new ArrayList<>();
    private RemotingControllerClient client;

    @BeforeEach
    void createExecutor() {
        executor = RequestExecutor.create("FakeController_", 1, 100, 0);
    }

    /** A node that advertises {@code advertisedLeader} and answers GET_NEXT_BROKER_ID when it leads. */
    private String startNode(String advertisedLeader, boolean isLeader) {
        NettyRemotingServer node = new NettyRemotingServer(NettyServerConfig.defaults(0));
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger asked = new AtomicInteger();
        node.registerProcessor(RequestCode.CONTROLLER_GET_METADATA_INFO, (context, request) -> {
            asked.incrementAndGet();
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.putExtField("controllerLeaderId", "n1");
            response.putExtField("controllerLeaderAddress", advertisedLeader);
            response.putExtField("isLeader", Boolean.toString(isLeader));
            return CompletableFuture.completedFuture(response);
        }, executor);
        node.registerProcessor(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, (context, request) -> {
            requests.incrementAndGet();
            if (!isLeader) {
                return CompletableFuture.completedFuture(RemotingCommand.response(ControllerResponseCode.NOT_LEADER,
                    "not the leader"));
            }
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.putExtField("nextBrokerId", "7");
            return CompletableFuture.completedFuture(response);
        }, executor);
        node.start();
        nodes.add(node);
        nextIdRequests.add(requests);
        metadataRequests.add(asked);
        return "127.0.0.1:" + node.localPort();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        nodes.forEach(NettyRemotingServer::shutdown);
        executor.shutdown(5000);
    }

    @Test
    void theConfiguredEntryThatLeadsIsUsedWhenTheAdvertisedLeaderIsNotConfigured() throws Exception {
        String follower = startNode(UNREACHABLE_ADVERTISED, false);
        String leaderEntry = startNode(UNREACHABLE_ADVERTISED, true);
        client = new RemotingControllerClient(follower + ";" + leaderEntry, NettyClientConfig.defaults(), 1000, 1000, 3000);

        assertEquals(UNREACHABLE_ADVERTISED, client.metadata().leaderAddress(), "the Controller's answer as it is");
        assertEquals(Optional.of(leaderEntry), client.leaderAddress());
        assertEquals(7, client.nextBrokerId("DefaultCluster", "broker-a"));
        assertEquals(0, nextIdRequests.get(0).get(), "the follower is not asked");
        assertEquals(1, nextIdRequests.get(1).get());
    }

    @Test
    void anAdvertisedLeaderThatIsConfiguredIsUsedAsItIs() throws Exception {
        String leaderEntry = startNode("", true);
        String follower = startNode(leaderEntry, false);
        client = new RemotingControllerClient(follower + ";" + leaderEntry, NettyClientConfig.defaults(), 1000, 1000, 3000);

        client.metadata();
        assertEquals(Optional.of(leaderEntry), client.leaderAddress());
        assertEquals(List.of(0, 1), metadataRequests.stream().map(AtomicInteger::get).toList(),
            "the follower's answer is enough: the leader is not asked who leads");
    }
}
