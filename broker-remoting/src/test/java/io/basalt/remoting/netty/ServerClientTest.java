package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SerializeType;
import io.netty.channel.epoll.Epoll;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Basalt server and client over loopback: round trips, timeouts, back-pressure, shutdown. */
class ServerClientTest {
    static final int ECHO = 1000;
    static final int ASYNC = 1001;
    static final int THROWS = 1002;
    static final int BLOCKS = 1003;
    static final int ONEWAY_SINK = 1004;
    static final int BUDGETED = 1005;
    static final int NEVER_ANSWERS = 1006;
    static final int REMEMBER_CONNECTION = 1007;

    private final AtomicLong fakeNanos = new AtomicLong();
    private final ConcurrentLinkedQueue<CompletableFuture<RemotingCommand>> asyncAnswers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger onewayReceived = new AtomicInteger();
    private final AtomicReference<RemotingConnection> remembered = new AtomicReference<>();
    private final List<RequestExecutor> executors = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch blockerEntered = new CountDownLatch(1);
    private NettyRemotingServer server;
    private NettyRemotingClient client;
    private String address;

    @BeforeEach
    void start() {
        server = new NettyRemotingServer(TestServerConfig.loopback().selectorThreads(2).shutdownDrainTimeoutMs(5_000).build());
        RequestExecutor echoPool = executor(RequestExecutor.create("TestEchoThread_", 2, 64, 0));
        server.registerProcessor(ECHO, (ctx, req) -> {
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, "echo " + req.remark());
            response.setBody(req.body());
            response.putExtField("seen", req.extFields() == null ? "none" : req.extFields().get("k"));
            return CompletableFuture.completedFuture(response);
        }, echoPool);
        server.registerProcessor(ASYNC, (ctx, req) -> {
            CompletableFuture<RemotingCommand> answer = new CompletableFuture<>();
            asyncAnswers.add(answer);
            return answer;
        }, echoPool);
        server.registerProcessor(THROWS, (ctx, req) -> {
            throw new IllegalStateException("processor exploded");
        }, echoPool);
        server.registerProcessor(ONEWAY_SINK, (ctx, req) -> {
            onewayReceived.incrementAndGet();
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, "must not be sent"));
        }, echoPool);
        server.registerProcessor(NEVER_ANSWERS, (ctx, req) -> {
            CompletableFuture<RemotingCommand> never = new CompletableFuture<>();
            asyncAnswers.add(never); // completed empty after the test, so that shutdown need not wait
            return never;
        }, echoPool);
        server.registerProcessor(REMEMBER_CONNECTION, (ctx, req) -> {
            remembered.set(ctx.connection());
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
        }, echoPool);
        server.registerProcessor(BLOCKS, (ctx, req) -> {
            blockerEntered.countDown();
            release.await();
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
        }, executor(RequestExecutor.create("TestBlockingThread_", 1, 1, 0)));
        server.registerProcessor(BUDGETED, (ctx, req) -> {
            if ("block".equals(req.remark())) {
                blockerEntered.countDown();
                release.await();
            }
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, "processed"));
        }, executor(new RequestExecutor("TestBudgetThread_", 1, 8, 200, fakeNanos::get)));
        server.start();
        address = "127.0.0.1:" + server.localPort();
        client = new NettyRemotingClient(new NettyClientConfig(1, 3000, 1 << 20, 0, true));
    }

    private RequestExecutor executor(RequestExecutor executor) {
        executors.add(executor);
        return executor;
    }

    @AfterEach
    void stop() throws InterruptedException {
        release.countDown();
        asyncAnswers.forEach(f -> f.complete(null));
        client.close();
        server.shutdown();
        for (RequestExecutor executor : executors) {
            assertTrue(executor.shutdown(5_000));
        }
        RemotingThreads.assertNoneLeft();
    }

    @Test
    void usesEpollWhereAvailable() {
        assertEquals(Epoll.isAvailable(), server.usesEpoll());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void syncRoundTrip(SerializeType type) throws Exception {
        RemotingCommand request = RemotingCommand.request(ECHO);
        request.setSerializeType(type);
        request.setRemark("hi");
        request.putExtField("k", "v");
        request.setBody(new byte[] {1, 2, 3});
        RemotingCommand response = client.invokeSync(address, request, 5_000);
        assertEquals(ResponseCode.SUCCESS, response.code());
        assertEquals("echo hi", response.remark());
        assertEquals("v", response.extFields().get("seen"));
        assertArrayEquals(new byte[] {1, 2, 3}, response.body());
        assertEquals(request.opaque(), response.opaque());
        assertEquals(type, response.serializeType());
        assertTrue(response.isResponse());
    }

    @Test
    void asyncProcessorAnswersWhenItsFutureCompletes() throws Exception {
        CompletableFuture<RemotingCommand> call = client.invokeAsync(address, RemotingCommand.request(ASYNC), 10_000);
        await().atMost(ofSeconds(10)).until(() -> !asyncAnswers.isEmpty());
        assertFalse(call.isDone());
        Thread completer = new Thread(() -> asyncAnswers.poll().complete(RemotingCommand.response(ResponseCode.SUCCESS, "later")),
            "TestCompleter");
        completer.start();
        assertEquals("later", call.get(10, TimeUnit.SECONDS).remark());
        completer.join();
    }

    @Test
    void asyncProcessorFailureBecomesSystemError() throws Exception {
        CompletableFuture<RemotingCommand> call = client.invokeAsync(address, RemotingCommand.request(ASYNC), 10_000);
        await().atMost(ofSeconds(10)).until(() -> !asyncAnswers.isEmpty());
        asyncAnswers.poll().completeExceptionally(new IllegalArgumentException("disk on fire"));
        RemotingCommand response = call.get(10, TimeUnit.SECONDS);
        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertTrue(response.remark().contains("disk on fire"), response.remark());
    }

    @Test
    void processorExceptionGetsSystemErrorAndServerKeepsGoing() throws Exception {
        RemotingCommand response = client.invokeSync(address, RemotingCommand.request(THROWS), 5_000);
        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertTrue(response.remark().contains("IllegalStateException: processor exploded"), response.remark());
        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code());
    }

    @Test
    void unknownCodeGetsRequestCodeNotSupported() throws Exception {
        RemotingCommand response = client.invokeSync(address, RemotingCommand.request(4242), 5_000);
        assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, response.code());
        assertTrue(response.remark().contains("4242"));
    }

    @Test
    void onewayRequestIsProcessedButNeverAnswered() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.localPort())) {
            RemotingCommand oneway = RemotingCommand.request(ONEWAY_SINK);
            oneway.markOneway();
            RemotingCommand unknownOneway = RemotingCommand.request(4242);
            unknownOneway.markOneway();
            RemotingCommand echo = RemotingCommand.request(ECHO);
            OutputStream out = socket.getOutputStream();
            out.write(oneway.encode());
            out.write(unknownOneway.encode());
            out.write(echo.encode());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            RemotingCommand first = RemotingCommand.decode(java.nio.ByteBuffer.wrap(frame));
            assertEquals(echo.opaque(), first.opaque(), "the first answer is the echo's: one-way requests get none");
        }
        await().atMost(ofSeconds(10)).until(() -> onewayReceived.get() == 1);
        client.invokeOneway(address, RemotingCommand.request(ONEWAY_SINK), 5_000).get(10, TimeUnit.SECONDS);
        await().atMost(ofSeconds(10)).until(() -> onewayReceived.get() == 2);
        await().atMost(ofSeconds(10)).until(() -> server.inFlightRequests() == 0);
    }

    @Test
    void fullQueueGetsSystemBusyAtOnce() throws Exception {
        CompletableFuture<RemotingCommand> running = client.invokeAsync(address, RemotingCommand.request(BLOCKS), 30_000);
        assertTrue(blockerEntered.await(10, TimeUnit.SECONDS));
        CompletableFuture<RemotingCommand> queued = client.invokeAsync(address, RemotingCommand.request(BLOCKS), 30_000);
        await().atMost(ofSeconds(10)).until(() -> executors.get(1).queueSize() == 1);
        RemotingCommand refused = client.invokeSync(address, RemotingCommand.request(BLOCKS), 10_000);
        assertEquals(ResponseCode.SYSTEM_BUSY, refused.code());
        assertTrue(refused.remark().startsWith("[OVERLOAD]"));
        assertEquals(1, executors.get(1).systemBusyCount());
        release.countDown();
        assertEquals(ResponseCode.SUCCESS, running.get(10, TimeUnit.SECONDS).code());
        assertEquals(ResponseCode.SUCCESS, queued.get(10, TimeUnit.SECONDS).code());
    }

    @Test
    void requestThatWaitedOverItsBudgetGetsSystemBusy() throws Exception {
        RemotingCommand blocker = RemotingCommand.request(BUDGETED);
        blocker.setRemark("block");
        CompletableFuture<RemotingCommand> running = client.invokeAsync(address, blocker, 30_000);
        assertTrue(blockerEntered.await(10, TimeUnit.SECONDS));
        CompletableFuture<RemotingCommand> late = client.invokeAsync(address, RemotingCommand.request(BUDGETED), 30_000);
        await().atMost(ofSeconds(10)).until(() -> executors.get(2).queueSize() == 1);
        fakeNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(201));
        release.countDown();
        assertEquals("processed", running.get(10, TimeUnit.SECONDS).remark());
        RemotingCommand busy = late.get(10, TimeUnit.SECONDS);
        assertEquals(ResponseCode.SYSTEM_BUSY, busy.code());
        assertTrue(busy.remark().startsWith("[TIMEOUT_CLEAN_QUEUE]"), busy.remark());
        assertEquals("processed", client.invokeSync(address, RemotingCommand.request(BUDGETED), 10_000).remark());
        assertEquals(1, executors.get(2).systemBusyCount());
    }

    @Test
    void theHeadWaitIsHowLongTheOldestQueuedRequestHasWaited() throws Exception {
        RequestExecutor budgeted = executors.get(2);
        assertEquals(0, budgeted.headWaitMillis(), "nothing queued");
        RemotingCommand blocker = RemotingCommand.request(BUDGETED);
        blocker.setRemark("block");
        CompletableFuture<RemotingCommand> running = client.invokeAsync(address, blocker, 30_000);
        assertTrue(blockerEntered.await(10, TimeUnit.SECONDS));
        CompletableFuture<RemotingCommand> queued = client.invokeAsync(address, RemotingCommand.request(BUDGETED), 30_000);
        await().atMost(ofSeconds(10)).until(() -> budgeted.queueSize() == 1);
        fakeNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
        assertEquals(150, budgeted.headWaitMillis());
        release.countDown();
        assertEquals("processed", running.get(10, TimeUnit.SECONDS).remark());
        assertEquals("processed", queued.get(10, TimeUnit.SECONDS).remark());
        assertEquals(0, budgeted.headWaitMillis());
    }

    @Test
    void overdueRequestIsAnsweredWhileTheThreadsAreStillBusy() throws Exception {
        RemotingCommand blocker = RemotingCommand.request(BUDGETED);
        blocker.setRemark("block");
        CompletableFuture<RemotingCommand> running = client.invokeAsync(address, blocker, 30_000);
        assertTrue(blockerEntered.await(10, TimeUnit.SECONDS));
        CompletableFuture<RemotingCommand> late = client.invokeAsync(address, RemotingCommand.request(BUDGETED), 30_000);
        await().atMost(ofSeconds(10)).until(() -> executors.get(2).queueSize() == 1);
        fakeNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(201));
        CompletableFuture<RemotingCommand> next = client.invokeAsync(address, RemotingCommand.request(BUDGETED), 30_000);
        RemotingCommand busy = late.get(10, TimeUnit.SECONDS);
        assertEquals(ResponseCode.SYSTEM_BUSY, busy.code());
        assertTrue(busy.remark().startsWith("[TIMEOUT_CLEAN_QUEUE]"), busy.remark());
        assertFalse(running.isDone(), "answered while the only thread is still blocked");
        release.countDown();
        assertEquals("processed", running.get(10, TimeUnit.SECONDS).remark());
        assertEquals("processed", next.get(10, TimeUnit.SECONDS).remark());
    }

    @Test
    void clientTimesOutAndForgetsThePendingRequest() {
        RemotingTimeoutException e = assertThrows(RemotingTimeoutException.class,
            () -> client.invokeSync(address, RemotingCommand.request(NEVER_ANSWERS), 300));
        assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
        assertEquals(0, client.pendingRequests());
        CompletableFuture<RemotingCommand> async = client.invokeAsync(address, RemotingCommand.request(NEVER_ANSWERS), 300);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> async.get(10, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof RemotingTimeoutException);
        assertEquals(0, client.pendingRequests());
    }

    @Test
    void oneConnectionPerAddressIsReused() throws Exception {
        for (int i = 0; i < 5; i++) {
            client.invokeSync(address, RemotingCommand.request(ECHO), 5_000);
        }
        List<CompletableFuture<RemotingCommand>> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(client.invokeAsync(address, RemotingCommand.request(ECHO), 10_000));
        }
        for (CompletableFuture<RemotingCommand> call : calls) {
            assertEquals(ResponseCode.SUCCESS, call.get(10, TimeUnit.SECONDS).code());
        }
        assertEquals(1, server.connectionCount());
        assertEquals(1, client.connectionCount());
    }

    @Test
    void closedConnectionFailsPendingAndReconnects() throws Exception {
        CompletableFuture<RemotingCommand> pending = client.invokeAsync(address, RemotingCommand.request(NEVER_ANSWERS), 30_000);
        await().atMost(ofSeconds(10)).until(() -> client.pendingRequests() == 1);
        client.closeConnection(address);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof RemotingConnectException, failed.getCause().toString());
        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code());
    }

    @Test
    void unreachableAddressFailsWithConnectException() throws Exception {
        int freePort;
        try (ServerSocket probe = new ServerSocket(0)) {
            freePort = probe.getLocalPort();
        }
        assertThrows(RemotingConnectException.class,
            () -> client.invokeSync("127.0.0.1:" + freePort, RemotingCommand.request(ECHO), 5_000));
        assertThrows(RemotingConnectException.class, () -> client.invokeSync("no-port", RemotingCommand.request(ECHO), 5_000));
    }

    @Test
    void shutdownDrainsAcceptedRequests() throws Exception {
        CompletableFuture<RemotingCommand> call = client.invokeAsync(address, RemotingCommand.request(ASYNC), 30_000);
        await().atMost(ofSeconds(10)).until(() -> !asyncAnswers.isEmpty());
        Thread stopper = new Thread(server::shutdown, "TestStopper");
        stopper.start();
        // The stopper first closes the listening socket, then drains: until the drain began, an echo on
        // the open connection is still served; from then on every new request is turned away.
        await().atMost(ofSeconds(10)).until(() ->
            client.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code() == ResponseCode.GO_AWAY);
        assertFalse(call.isDone(), "the accepted request is still being waited for");
        RemotingCommand late = client.invokeSync(address, RemotingCommand.request(ECHO), 5_000);
        assertEquals(ResponseCode.GO_AWAY, late.code(), "requests arriving during the drain are turned away");
        asyncAnswers.poll().complete(RemotingCommand.response(ResponseCode.SUCCESS, "drained"));
        RemotingCommand response = call.get(10, TimeUnit.SECONDS);
        assertEquals("drained", response.remark());
        stopper.join(10_000);
        assertFalse(stopper.isAlive());
        assertEquals(0, server.connectionCount());
    }

    @Test
    void idleConnectionIsClosed() throws Exception {
        NettyRemotingServer idleServer = new NettyRemotingServer(TestServerConfig.loopback().channelMaxIdleSeconds(1).build());
        idleServer.start();
        try (Socket socket = new Socket("127.0.0.1", idleServer.localPort())) {
            await().atMost(ofSeconds(10)).until(() -> idleServer.connectionCount() == 1);
            await().atMost(ofSeconds(10)).until(() -> idleServer.connectionCount() == 0);
            assertEquals(-1, socket.getInputStream().read());
        } finally {
            idleServer.shutdown();
        }
    }

    @Test
    void responseWithoutCallerIsDropped() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.localPort())) {
            RemotingCommand stray = RemotingCommand.response(ResponseCode.SUCCESS, "nobody asked");
            socket.getOutputStream().write(stray.encode());
            RemotingCommand echo = RemotingCommand.request(ECHO);
            socket.getOutputStream().write(echo.encode());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            assertNotNull(RemotingCommand.decode(java.nio.ByteBuffer.wrap(frame)));
        }
    }

    @Test
    void serverCallsThePeerThroughItsConnection() throws Exception {
        client.invokeSync(address, RemotingCommand.request(REMEMBER_CONNECTION), 5_000);
        RemotingConnection peer = remembered.get();
        assertTrue(peer.isActive());
        RemotingCommand answer = peer.invoke(RemotingCommand.request(RequestCode.GET_CONSUMER_RUNNING_INFO), 5_000)
            .get(10, TimeUnit.SECONDS);
        assertEquals(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, answer.code(), "the Basalt client serves no requests");
        peer.invokeOneway(RemotingCommand.request(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED)).get(10, TimeUnit.SECONDS);

        try (Socket silent = new Socket("127.0.0.1", server.localPort())) {
            silent.getOutputStream().write(RemotingCommand.request(REMEMBER_CONNECTION).encode());
            await().atMost(ofSeconds(10)).until(() -> remembered.get() != peer);
            RemotingConnection silentPeer = remembered.get();
            ExecutionException timedOut = assertThrows(ExecutionException.class,
                () -> silentPeer.invoke(RemotingCommand.request(RequestCode.CHECK_TRANSACTION_STATE), 200).get(10, TimeUnit.SECONDS));
            assertTrue(timedOut.getCause() instanceof RemotingTimeoutException, timedOut.getCause().toString());
            DataInputStream in = new DataInputStream(silent.getInputStream());
            in.readFully(new byte[in.readInt()]); // the response to REMEMBER_CONNECTION
            in.readFully(new byte[in.readInt()]); // the call that timed out
            CompletableFuture<RemotingCommand> cut = silentPeer.invoke(RemotingCommand.request(RequestCode.CHECK_TRANSACTION_STATE), 30_000);
            in.readFully(new byte[in.readInt()]); // this call reached the peer, which now hangs up
            silent.close();
            ExecutionException closed = assertThrows(ExecutionException.class, () -> cut.get(10, TimeUnit.SECONDS));
            assertTrue(closed.getCause() instanceof RemotingConnectException, closed.getCause().toString());
        }
    }

    @Test
    void listenersHearOfEachClosedConnection() throws Exception {
        List<RemotingConnection> closed = new java.util.concurrent.CopyOnWriteArrayList<>();
        server.onConnectionClosed(closed::add);
        client.invokeSync(address, RemotingCommand.request(REMEMBER_CONNECTION), 5_000);
        RemotingConnection peer = remembered.get();
        assertTrue(peer.isWritable(), "nothing is waiting to be read");
        client.closeConnection(address);
        await().atMost(ofSeconds(10)).until(() -> closed.contains(peer));
        assertFalse(peer.isActive());
        assertEquals(1, closed.size());
    }

    @Test
    void portInUseFailsStartAndLeavesNoThreads() {
        NettyRemotingServer second = new NettyRemotingServer(
            TestServerConfig.loopback().listenPort(server.localPort()).build());
        IllegalStateException e = assertThrows(IllegalStateException.class, second::start);
        assertTrue(e.getMessage().contains(String.valueOf(server.localPort())), e.getMessage());
        second.shutdown();
    }
}
