package io.basalt.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Finding the Controller leader again after a request failed: a one-node Controller that names itself leader but
 * answers NOT_LEADER at first (DLedger elects itself before its state machine serves requests, as right after a
 * restart) is asked again, not given up on because no other node is leader.
 */
class RemotingControllerClientLeaderTest {
    private RequestExecutor executor;
    private NettyRemotingServer node;
    private final AtomicInteger notLeaderAnswersLeft = new AtomicInteger();
    private final AtomicInteger nextIdRequests = new AtomicInteger();
    private RemotingControllerClient client;

    @BeforeEach
    void startNode() {
        executor = RequestExecutor.create("FakeController_", 1, 100, 0);
        node = new NettyRemotingServer(NettyServerConfig.defaults(0));
        node.registerProcessor(RequestCode.CONTROLLER_GET_METADATA_INFO, (context, request) -> {
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.putExtField("controllerLeaderId", "n0");
            response.putExtField("controllerLeaderAddress", address());
            response.putExtField("isLeader", "true");
            return CompletableFuture.completedFuture(response);
        }, executor);
        node.registerProcessor(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, (context, request) -> {
            nextIdRequests.incrementAndGet();
            if (notLeaderAnswersLeft.getAndDecrement() > 0) {
                return CompletableFuture.completedFuture(RemotingCommand.response(ControllerResponseCode.NOT_LEADER,
                    "The controller is not in a state that can handle requests"));
            }
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.putExtField("nextBrokerId", "1");
            return CompletableFuture.completedFuture(response);
        }, executor);
        node.start();
        client = new RemotingControllerClient(address(), NettyClientConfig.defaults(), 1000, 1000, 3000);
    }

    private String address() {
        return "127.0.0.1:" + node.localPort();
    }

    @AfterEach
    void stop() throws InterruptedException {
        client.close();
        node.shutdown();
        executor.shutdown(5000);
    }

    @Test
    void aOneNodeControllerThatWasNotReadyIsAskedAgain() throws Exception {
        notLeaderAnswersLeft.set(1);
        assertEquals(1, client.nextBrokerId("DefaultCluster", "broker-a"));
        assertEquals(2, nextIdRequests.get(), "asked once more, after it still named itself leader");
    }

    @Test
    void aLeaderThatIsNotReadyAgainIsAnsweredAsTheControllerSaid() {
        notLeaderAnswersLeft.set(2);
        ControllerException refused = org.junit.jupiter.api.Assertions.assertThrows(ControllerException.class,
            () -> client.nextBrokerId("DefaultCluster", "broker-a"));
        assertEquals(ControllerResponseCode.NOT_LEADER, refused.code(), refused.getMessage());
        assertEquals(2, nextIdRequests.get());
    }
}
