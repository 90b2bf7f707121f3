package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.PullMessageRequestHeader;
import io.basalt.remoting.protocol.PullMessageResponseHeader;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.remoting.protocol.SendMessageResponseHeader;
import io.basalt.remoting.protocol.SerializeType;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.remoting.InvokeCallback;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.netty.ResponseFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The official rocketmq-remoting 5.2.0 client talks to the Basalt server, and the Basalt client to the
 * official server, with both header serializations. Both run on this module's Netty 4.2.
 */
@LeakCheckExtension.AllowThreads(value = "NettyServerScheduler_",
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class OfficialInteropTest {

    private static org.apache.rocketmq.remoting.protocol.SerializeType official(SerializeType type) {
        return org.apache.rocketmq.remoting.protocol.SerializeType.valueOf(type.name());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void officialClientTalksToBasaltServer(SerializeType type) throws Exception {
        AtomicInteger onewayCalls = new AtomicInteger();
        AtomicReference<SendMessageRequestHeader> received = new AtomicReference<>();
        RequestExecutor executor = RequestExecutor.create("TestSendThread_", 2, 64, 0);
        NettyRemotingServer server = new NettyRemotingServer(TestServerConfig.loopback().build());
        server.registerProcessor(RequestCode.SEND_MESSAGE_V2, (ctx, request) -> {
            SendMessageRequestHeader header = SendMessageRequestHeader.parse(request);
            received.set(header);
            SendMessageResponseHeader responseHeader = new SendMessageResponseHeader();
            responseHeader.setMsgId("MSG-" + header.getTopic());
            responseHeader.setQueueId(header.getQueueId());
            responseHeader.setQueueOffset(4242L);
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null, responseHeader);
            response.setBody(request.body());
            return CompletableFuture.completedFuture(response);
        }, executor);
        server.registerProcessor(RequestCode.HEART_BEAT, (ctx, request) -> {
            onewayCalls.incrementAndGet();
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
        }, executor);
        server.start();
        org.apache.rocketmq.remoting.netty.NettyRemotingClient client =
            new org.apache.rocketmq.remoting.netty.NettyRemotingClient(new org.apache.rocketmq.remoting.netty.NettyClientConfig());
        client.start();
        String address = "127.0.0.1:" + server.localPort();
        try {
            org.apache.rocketmq.remoting.protocol.RemotingCommand response =
                client.invokeSync(address, officialSend(type), 5_000);
            assertEquals(ResponseCode.SUCCESS, response.getCode());
            org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader header =
                (org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader)
                    response.decodeCommandCustomHeader(org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader.class);
            assertEquals("MSG-TopicTest", header.getMsgId());
            assertEquals(Integer.valueOf(3), header.getQueueId());
            assertEquals(Long.valueOf(4242L), header.getQueueOffset());
            assertArrayEquals("payload".getBytes(), response.getBody());
            assertEquals("pg", received.get().getProducerGroup());
            assertEquals("UNIQ_KEY\u0001K1\u0002", received.get().getProperties());

            CompletableFuture<org.apache.rocketmq.remoting.protocol.RemotingCommand> async = new CompletableFuture<>();
            client.invokeAsync(address, officialSend(type), 5_000, new InvokeCallback() {
                @Override
                public void operationComplete(ResponseFuture responseFuture) {
                }

                @Override
                public void operationSucceed(org.apache.rocketmq.remoting.protocol.RemotingCommand r) {
                    async.complete(r);
                }

                @Override
                public void operationFail(Throwable throwable) {
                    async.completeExceptionally(throwable);
                }
            });
            assertEquals(ResponseCode.SUCCESS, async.get(10, TimeUnit.SECONDS).getCode());

            org.apache.rocketmq.remoting.protocol.RemotingCommand heartbeat =
                org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
            heartbeat.setSerializeTypeCurrentRPC(official(type));
            client.invokeOneway(address, heartbeat, 5_000);
            await().atMost(ofSeconds(10)).until(() -> onewayCalls.get() == 1 && server.inFlightRequests() == 0);

            org.apache.rocketmq.remoting.protocol.RemotingCommand unknown =
                org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(9999, null);
            unknown.setSerializeTypeCurrentRPC(official(type));
            assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, client.invokeSync(address, unknown, 5_000).getCode());
        } finally {
            client.shutdown();
            server.shutdown();
            executor.shutdown(5_000);
        }
    }

    private static org.apache.rocketmq.remoting.protocol.RemotingCommand officialSend(SerializeType type) {
        org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader v1 =
            new org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader();
        v1.setProducerGroup("pg");
        v1.setTopic("TopicTest");
        v1.setDefaultTopic("TBW102");
        v1.setDefaultTopicQueueNums(4);
        v1.setQueueId(3);
        v1.setSysFlag(0);
        v1.setBornTimestamp(System.currentTimeMillis());
        v1.setFlag(0);
        v1.setProperties("UNIQ_KEY\u0001K1\u0002");
        org.apache.rocketmq.remoting.protocol.RemotingCommand request =
            org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2,
                org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(v1));
        request.setSerializeTypeCurrentRPC(official(type));
        request.setBody("payload".getBytes());
        return request;
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void basaltClientTalksToOfficialServer(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.netty.NettyServerConfig config = new org.apache.rocketmq.remoting.netty.NettyServerConfig();
        config.setBindAddress("127.0.0.1");
        config.setListenPort(0);
        org.apache.rocketmq.remoting.netty.NettyRemotingServer server =
            new org.apache.rocketmq.remoting.netty.NettyRemotingServer(config);
        ExecutorService executor = Executors.newFixedThreadPool(2);
        AtomicReference<org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader> received = new AtomicReference<>();
        server.registerProcessor(RequestCode.PULL_MESSAGE, new NettyRequestProcessor() {
            @Override
            public org.apache.rocketmq.remoting.protocol.RemotingCommand processRequest(ChannelHandlerContext ctx,
                org.apache.rocketmq.remoting.protocol.RemotingCommand request) throws Exception {
                received.set((org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader) request
                    .decodeCommandCustomHeader(org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader.class));
                org.apache.rocketmq.remoting.protocol.header.PullMessageResponseHeader header =
                    new org.apache.rocketmq.remoting.protocol.header.PullMessageResponseHeader();
                header.setSuggestWhichBrokerId(0L);
                header.setNextBeginOffset(received.get().getQueueOffset() + 2);
                header.setMinOffset(0L);
                header.setMaxOffset(100L);
                org.apache.rocketmq.remoting.protocol.RemotingCommand response =
                    org.apache.rocketmq.remoting.protocol.RemotingCommand.createResponseCommandWithHeader(
                        ResponseCode.SUCCESS, header);
                response.setBody(new byte[] {9, 8, 7});
                return response;
            }

            @Override
            public boolean rejectRequest() {
                return false;
            }
        }, executor);
        server.start();
        NettyRemotingClient client = new NettyRemotingClient(NettyClientConfig.defaults());
        try {
            PullMessageRequestHeader header = new PullMessageRequestHeader();
            header.setConsumerGroup("cg");
            header.setTopic("TopicTest");
            header.setQueueId(1);
            header.setQueueOffset(40L);
            header.setMaxMsgNums(32);
            header.setSysFlag(2);
            header.setCommitOffset(38L);
            header.setSuspendTimeoutMillis(15_000L);
            header.setSubVersion(1L);
            header.setSubscription("*");
            RemotingCommand request = RemotingCommand.request(RequestCode.PULL_MESSAGE, header);
            request.setSerializeType(type);
            RemotingCommand response = client.invokeSync("127.0.0.1:" + server.localListenPort(), request, 5_000);
            assertEquals(ResponseCode.SUCCESS, response.code());
            PullMessageResponseHeader responseHeader = PullMessageResponseHeader.decode(response.extFields());
            assertEquals(42L, responseHeader.getNextBeginOffset());
            assertEquals(100L, responseHeader.getMaxOffset());
            assertArrayEquals(new byte[] {9, 8, 7}, response.body());
            assertNotNull(received.get());
            assertEquals("cg", received.get().getConsumerGroup());
            assertEquals(Long.valueOf(38L), received.get().getCommitOffset());

            RemotingCommand unknown = RemotingCommand.request(9999);
            unknown.setSerializeType(type);
            assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                client.invokeSync("127.0.0.1:" + server.localListenPort(), unknown, 5_000).code());
        } finally {
            client.close();
            server.shutdown();
            executor.shutdownNow();
        }
    }
}
