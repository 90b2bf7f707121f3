package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SerializeType;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Each kind of bad input closes the offending connection, with one log line naming the peer and the
 * reason, while a second client on the same server keeps being served.
 */
class MalformedFrameTest {
    private static final int MAX_FRAME = 4096;
    private static final int ECHO = 1;

    private final ListAppender<ILoggingEvent> logLines = new ListAppender<>();
    private Logger serverLogger;
    private NettyRemotingServer server;
    private NettyRemotingClient goodClient;
    private RequestExecutor executor;

    @BeforeEach
    void start() {
        serverLogger = (Logger) LoggerFactory.getLogger(NettyRemotingServer.class);
        logLines.start();
        serverLogger.addAppender(logLines);
        executor = RequestExecutor.create("TestEchoThread_", 1, 16, 0);
        server = new NettyRemotingServer(TestServerConfig.loopback().maxFrameLength(MAX_FRAME).build());
        server.registerProcessor(ECHO, (ctx, req) ->
            CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, "ok")), executor);
        server.start();
        goodClient = new NettyRemotingClient(new NettyClientConfig(1, 3000, 1 << 20, 0, true));
    }

    @AfterEach
    void stop() throws InterruptedException {
        goodClient.close();
        server.shutdown();
        executor.shutdown(5_000);
        serverLogger.detachAppender(logLines);
        RemotingThreads.assertNoneLeft();
    }

    static Stream<Arguments> badInput() {
        byte[] json = "{\"code\":1,".getBytes(StandardCharsets.UTF_8);
        return Stream.of(
            Arguments.of("frame longer than the maximum", ByteBuffer.allocate(8).putInt(MAX_FRAME).putInt(0).array()),
            Arguments.of("negative length", ByteBuffer.allocate(8).putInt(-5).putInt(0).array()),
            Arguments.of("frame too short for a header-length word", ByteBuffer.allocate(6).putInt(2).putShort((short) 0).array()),
            Arguments.of("header length beyond the frame", frame(ByteBuffer.allocate(8).putInt(200).putInt(0).array())),
            Arguments.of("header that does not parse", frame(ByteBuffer.allocate(4 + json.length).putInt(json.length).put(json).array())),
            Arguments.of("binary header cut short", frame(ByteBuffer.allocate(10).putInt(1 << 24 | 6).putShort((short) 1)
                .put((byte) 0).putShort((short) 0).put((byte) 9).array())),
            Arguments.of("binary extFields length beyond the header", frame(binaryWithExtLength(500))),
            Arguments.of("unknown serialization type", frame(ByteBuffer.allocate(8).putInt(7 << 24 | 4).putInt(0).array())));
    }

    /** Prefixes {@code payload} with its length word. */
    private static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    /** A binary command without remark, fields or body whose extFields length (its last int) lies. */
    private static byte[] binaryWithExtLength(int extLength) {
        RemotingCommand cmd = RemotingCommand.request(ECHO);
        cmd.setSerializeType(SerializeType.ROCKETMQ);
        byte[] good = cmd.encode();
        ByteBuffer.wrap(good).putInt(good.length - 4, extLength);
        return Arrays.copyOfRange(good, 4, good.length);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void badInputClosesOnlyThatConnection(String reason, byte[] bytes) throws Exception {
        String address = "127.0.0.1:" + server.localPort();
        assertEquals(ResponseCode.SUCCESS, goodClient.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code());
        try (Socket bad = new Socket("127.0.0.1", server.localPort())) {
            String peer = bad.getLocalSocketAddress().toString();
            bad.getOutputStream().write(bytes);
            bad.getOutputStream().flush();
            assertEquals(-1, readUntilClosed(bad.getInputStream()), reason);
            await().atMost(ofSeconds(10)).until(() -> server.malformedFrameCount() == 1);
            List<String> lines = logLines.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(line -> line.contains("malformed")).collect(Collectors.toList());
            assertEquals(1, lines.size(), lines::toString);
            assertTrue(lines.get(0).contains(peer), lines.get(0) + " names " + peer);
        }
        assertEquals(ResponseCode.SUCCESS, goodClient.invokeSync(address, RemotingCommand.request(ECHO), 5_000).code());
        await().atMost(ofSeconds(10)).until(() -> server.connectionCount() == 1);
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

    @org.junit.jupiter.api.Test
    void aGrpcClientIsToldItReachedTheRemotingPort() throws Exception {
        try (Socket grpc = new Socket("127.0.0.1", server.localPort())) {
            grpc.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            grpc.getOutputStream().flush();
            assertEquals(-1, readUntilClosed(grpc.getInputStream()));
        }
        await().atMost(ofSeconds(10)).until(() -> server.malformedFrameCount() == 1);
        assertTrue(logLines.list.stream().map(ILoggingEvent::getFormattedMessage).anyMatch(line -> line.contains(
            "an HTTP/2 (gRPC) client connected to the remoting port") && line.contains("grpcServerPort")),
            logLines.list::toString);
    }

    @org.junit.jupiter.api.Test
    void brokenRequestWithReadableOpaqueIsAnsweredBeforeTheClose() throws Exception {
        RemotingCommand cmd = RemotingCommand.request(ECHO);
        cmd.setSerializeType(SerializeType.ROCKETMQ);
        byte[] broken = cmd.encode();
        ByteBuffer.wrap(broken).putInt(broken.length - 4, 500); // extFields length beyond the header
        try (Socket bad = new Socket("127.0.0.1", server.localPort())) {
            bad.getOutputStream().write(broken);
            DataInputStream in = new DataInputStream(bad.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            RemotingCommand answer = RemotingCommand.decode(ByteBuffer.wrap(frame));
            assertEquals(cmd.opaque(), answer.opaque());
            assertEquals(ResponseCode.SYSTEM_ERROR, answer.code());
            assertTrue(answer.isResponse());
            assertTrue(answer.remark().startsWith("malformed request"), answer.remark());
            assertEquals(-1, readUntilClosed(in));
        }
        assertEquals(1, server.malformedFrameCount());
    }
}
