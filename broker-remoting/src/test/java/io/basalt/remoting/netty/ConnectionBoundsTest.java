package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's memory bounds against peers that do not play along: the bytes of unfinished frames are
 * bounded across connections, a frame begun must complete in time, and a peer that does not read its
 * responses is paused and then dropped. Each close is counted under its reason, and other peers keep
 * being served.
 */
class ConnectionBoundsTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final int ECHO = 1;
    private static final int BIG_ANSWER = 2;

    private NettyRemotingServer server;
    private NettyRemotingClient goodClient;
    private RequestExecutor executor;

    private void start(long budget, long frameTimeoutMs, long unwritableCloseMs) {
        executor = RequestExecutor.create("TestBoundsThread_", 1, 10_000, 0);
        server = new NettyRemotingServer(TestServerConfig.loopback().maxFrameLength(MAX_FRAME).build()
            .withBounds(budget, frameTimeoutMs, 8 * 1024, 16 * 1024, unwritableCloseMs));
        server.registerProcessor(ECHO, (ctx, req) ->
            CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, "ok")), executor);
        server.registerProcessor(BIG_ANSWER, (ctx, req) -> {
            RemotingCommand answer = RemotingCommand.response(ResponseCode.SUCCESS, null);
            answer.setBody(new byte[32 * 1024]);
            return CompletableFuture.completedFuture(answer);
        }, executor);
        server.start();
        goodClient = new NettyRemotingClient(new NettyClientConfig(1, 3000, 1 << 20, 0, true));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (goodClient != null) {
            goodClient.close();
        }
        if (server != null) {
            server.shutdown();
            executor.shutdown(5_000);
        }
        RemotingThreads.assertNoneLeft();
    }

    @Test
    void unfinishedFramesPastTheServerBudgetCloseTheConnectionThatWouldPassIt() throws Exception {
        start(MAX_FRAME + 40_000, 0, 0);
        try (Socket first = new Socket("127.0.0.1", server.localPort());
             Socket second = new Socket("127.0.0.1", server.localPort())) {
            // declares a 60,000-byte frame and sends 50,000 bytes of it: held, within the budget
            first.getOutputStream().write(ByteBuffer.allocate(4 + 50_000).putInt(60_000).array());
            first.getOutputStream().flush();
            await().atMost(ofSeconds(10)).until(() -> server.partialFrameBytes() == 50_004);
            // the second peer's 60,000 bytes would take the total past the budget
            second.getOutputStream().write(ByteBuffer.allocate(4 + 58_000).putInt(60_000).array());
            second.getOutputStream().flush();
            assertEquals(-1, readUntilClosed(second.getInputStream()));
            await().atMost(ofSeconds(10)).until(() -> server.closedConnections(CloseReason.PARTIAL_FRAME_BUDGET) == 1);
            assertEquals(50_004, server.partialFrameBytes(), "the closed peer's bytes were given back");
            assertEcho();
            // the first peer is still there and finishes its frame (a bad one, as it happens: zeros)
            first.getOutputStream().write(new byte[10_000]);
            first.getOutputStream().flush();
            assertEquals(-1, readUntilClosed(first.getInputStream()));
            await().atMost(ofSeconds(10)).until(() -> server.partialFrameBytes() == 0);
        }
        assertEquals(1, server.closedConnections(CloseReason.PARTIAL_FRAME_BUDGET));
    }

    @Test
    void aFrameThatDoesNotCompleteInTimeClosesItsSender() throws Exception {
        start(1L << 30, 300, 0);
        try (Socket stalled = new Socket("127.0.0.1", server.localPort());
             Socket trickling = new Socket("127.0.0.1", server.localPort())) {
            stalled.getOutputStream().write(ByteBuffer.allocate(4 + 100).putInt(MAX_FRAME - 4).array());
            stalled.getOutputStream().flush();
            OutputStream trickle = trickling.getOutputStream();
            trickle.write(ByteBuffer.allocate(4).putInt(MAX_FRAME - 4).array());
            // one byte at a time keeps the peer busy but never finishes the frame
            await().atMost(ofSeconds(10)).pollInterval(java.time.Duration.ofMillis(20)).until(() -> {
                try {
                    trickle.write(0);
                    trickle.flush();
                    return false;
                } catch (SocketException closed) {
                    return true;
                }
            });
            assertEquals(-1, readUntilClosed(stalled.getInputStream()));
            await().atMost(ofSeconds(10)).until(() -> server.closedConnections(CloseReason.FRAME_TIMEOUT) == 2);
            await().atMost(ofSeconds(10)).until(() -> server.partialFrameBytes() == 0);
        }
        assertEcho();
    }

    @Test
    void aPeerThatDoesNotReadItsResponsesIsPausedThenClosed() throws Exception {
        start(1L << 30, 0, 500);
        byte[] request = RemotingCommand.request(BIG_ANSWER).encode();
        try (Socket deaf = new Socket("127.0.0.1", server.localPort())) {
            deaf.setReceiveBufferSize(4096);
            OutputStream out = deaf.getOutputStream();
            // asks for far more than the socket buffers and the high water mark hold, never reads
            boolean closed = false;
            for (int i = 0; i < 2_000 && !closed; i++) {
                try {
                    out.write(request);
                } catch (SocketException e) {
                    closed = true;
                }
            }
            await().atMost(ofSeconds(10)).until(() -> server.closedConnections(CloseReason.UNWRITABLE) == 1);
        }
        assertEcho();
        assertFalse(server.closedConnections(CloseReason.MALFORMED_FRAME) > 0);
    }

    private void assertEcho() throws Exception {
        String address = "127.0.0.1:" + server.localPort();
        assertEquals(ResponseCode.SUCCESS, goodClient.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code());
    }

    private static int readUntilClosed(InputStream in) throws Exception {
        try {
            int b;
            do {
                b = in.read();
            } while (b != -1);
            return b;
        } catch (SocketException reset) {
            return -1;
        }
    }
}
