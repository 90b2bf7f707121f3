package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.ThreadStackTrace;
import apache.rocketmq.v2.VerifyMessageResult;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.protocol.Json;
import io.basalt.remoting.netty.RemotingSendRequestException;
import io.basalt.remoting.netty.RemotingTimeoutException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Broker-to-client requests to a gRPC consumer, translated onto its Telemetry stream and answered from its reply. */
class GrpcClientConnectionCommandsTest {
    private final ClientManager registry = new ClientManager(120_000, System::currentTimeMillis);
    private final GrpcClients clients = new GrpcClients(registry, null, offset -> null, id -> null);
    private final GrpcClientsConsumerTest.Recorder stream = new GrpcClientsConsumerTest.Recorder();

    private GrpcClientConnection consumer() {
        GrpcClientConnection c = clients.settle(GrpcClientsConsumerTest.metadata("push-1"), GrpcClientsConsumerTest
            .consumer(ClientType.PUSH_CONSUMER, "cg", "T", FilterType.TAG, "TagA")).connection();
        c.attach(stream);
        return c;
    }

    private static RemotingCommand runningInfoRequest(boolean jstack) {
        RemotingCommand r = RemotingCommand.request(RequestCode.GET_CONSUMER_RUNNING_INFO);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("clientId", "push-1");
        r.putExtField("jstackEnable", Boolean.toString(jstack));
        return r;
    }

    @Test
    void runningInfoIsTheClientsThreadStackMatchedByNonce() throws Exception {
        GrpcClientConnection c = consumer();
        CompletableFuture<RemotingCommand> answer = c.invoke(runningInfoRequest(true), 60_000);
        TelemetryCommand pushed = stream.sent.get(stream.sent.size() - 1);
        assertTrue(pushed.hasPrintThreadStackTraceCommand());
        String nonce = pushed.getPrintThreadStackTraceCommand().getNonce();
        assertTrue(!answer.isDone());
        assertTrue(c.reply(nonce, TelemetryCommand.newBuilder().setStatus(Status.newBuilder().setCode(Code.OK))
            .setThreadStackTrace(ThreadStackTrace.newBuilder().setNonce(nonce).setThreadStackTrace("\"main\" RUNNABLE"))
            .build()));
        RemotingCommand response = answer.get();
        assertEquals(ResponseCode.SUCCESS, response.code());
        @SuppressWarnings("unchecked")
        Map<String, Object> info = (Map<String, Object>) Json.parse(response.body());
        assertEquals("\"main\" RUNNABLE", info.get("jstack"));
        assertEquals("CONSUME_PASSIVELY", ((Map<?, ?>) info.get("properties")).get("PROP_CONSUME_TYPE"));
        assertTrue(new String(response.body(), StandardCharsets.UTF_8).contains("\"subString\":\"TagA\""));
    }

    @Test
    void aClientThatDoesNotReplyTimesOut() {
        GrpcClientConnection c = consumer();
        ExecutionException e = assertThrows(ExecutionException.class, () -> c.invoke(runningInfoRequest(true), 20).get());
        assertInstanceOf(RemotingTimeoutException.class, e.getCause());
    }

    @Test
    void aVerifyResultIsAConsumeResultAndNotImplementedIsAnError() throws Exception {
        GrpcClientConnection c = new GrpcClients(registry, null, offset -> null, id -> storedMessage()).settle(
            GrpcClientsConsumerTest.metadata("push-1"), GrpcClientsConsumerTest.consumer(ClientType.PUSH_CONSUMER, "cg",
                "T", FilterType.TAG, "*")).connection();
        c.attach(stream);
        RemotingCommand request = RemotingCommand.request(RequestCode.CONSUME_MESSAGE_DIRECTLY);
        request.putExtField("msgId", "any");
        CompletableFuture<RemotingCommand> ok = c.invoke(request, 60_000);
        String nonce = stream.sent.get(stream.sent.size() - 1).getVerifyMessageCommand().getNonce();
        assertEquals("T", stream.sent.get(stream.sent.size() - 1).getVerifyMessageCommand().getMessage().getTopic()
            .getName());
        c.reply(nonce, verifyResult(nonce, Code.OK));
        assertEquals(ResponseCode.SUCCESS, ok.get().code());
        assertEquals("CR_SUCCESS", ((Map<?, ?>) Json.parse(ok.get().body())).get("consumeResult"));

        CompletableFuture<RemotingCommand> refused = c.invoke(request, 60_000);
        nonce = stream.sent.get(stream.sent.size() - 1).getVerifyMessageCommand().getNonce();
        c.reply(nonce, verifyResult(nonce, Code.NOT_IMPLEMENTED));
        assertEquals(ResponseCode.SYSTEM_ERROR, refused.get().code());
        assertTrue(refused.get().remark().contains("NOT_IMPLEMENTED"), refused.get().remark());
    }

    @Test
    void otherRequestsStillFailNamingTheirCode() {
        GrpcClientConnection c = consumer();
        ExecutionException e = assertThrows(ExecutionException.class, () -> c.invoke(
            RemotingCommand.request(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT), 1_000).get());
        assertInstanceOf(RemotingSendRequestException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains(Integer.toString(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT)));
    }

    private static TelemetryCommand verifyResult(String nonce, Code code) {
        return TelemetryCommand.newBuilder().setStatus(Status.newBuilder().setCode(code))
            .setVerifyMessageResult(VerifyMessageResult.newBuilder().setNonce(nonce)).build();
    }

    private static io.basalt.store.StoredMessage storedMessage() {
        return new io.basalt.store.StoredMessage(0, 0, 0, 1, 0, 7, 4096, 0, 1_000L,
            new java.net.InetSocketAddress("127.0.0.1", 1234), 2_000L, new java.net.InetSocketAddress("127.0.0.1", 10911),
            0, 0, "hello".getBytes(StandardCharsets.UTF_8), "T", "TAGS\u0001TagA\u0002");
    }
}
