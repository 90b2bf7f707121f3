package io.basalt.bench.remoting;

import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SerializeType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Round trips per second of a small request (two header fields, 64-byte body) through the Basalt
 * server and client over loopback: one request at a time ({@link #inFlight1}), and a window that
 * keeps 64 requests outstanding ({@link #inFlight64}: each operation waits for a free slot, sends, and
 * frees the slot when the response arrives). The processor echoes on a 2-thread business executor.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RemotingRoundTripBenchmark {
    private static final int ECHO = 1000;
    private static final int WINDOW = 64;

    @Param({"ROCKETMQ", "JSON"})
    public String serializeType;

    private NettyRemotingServer server;
    private RequestExecutor executor;
    private NettyRemotingClient client;
    private String address;
    private final byte[] body = new byte[64];
    private final Semaphore window = new Semaphore(WINDOW);
    private final AtomicLong failures = new AtomicLong();

    @Setup(Level.Trial)
    public void start() throws Exception {
        executor = RequestExecutor.create("BenchEchoThread_", 2, 100_000, 0);
        server = new NettyRemotingServer(new NettyServerConfig("127.0.0.1", 0, 2, NettyServerConfig.DEFAULT_MAX_FRAME_LENGTH,
            0, 5_000, true));
        server.registerProcessor(ECHO, (ctx, request) -> {
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(request.body());
            return CompletableFuture.completedFuture(response);
        }, executor);
        server.start();
        address = "127.0.0.1:" + server.localPort();
        client = new NettyRemotingClient(new NettyClientConfig(1, 3000, NettyServerConfig.DEFAULT_MAX_FRAME_LENGTH, 0, true));
        client.invokeSync(address, request(), 3000);
    }

    private RemotingCommand request() {
        RemotingCommand request = RemotingCommand.request(ECHO);
        request.setSerializeType(SerializeType.valueOf(serializeType));
        request.putExtField("topic", "BenchTopic");
        request.putExtField("queueId", "1");
        request.setBody(body);
        return request;
    }

    @Benchmark
    public RemotingCommand inFlight1() throws RemotingException, InterruptedException {
        return client.invokeSync(address, request(), 3000);
    }

    @Benchmark
    public void inFlight64() throws InterruptedException {
        window.acquire();
        client.invokeAsync(address, request(), 3000).whenComplete((response, error) -> {
            if (error != null) {
                failures.incrementAndGet();
            }
            window.release();
        });
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        window.acquire(WINDOW);
        window.release(WINDOW);
        client.close();
        server.shutdown();
        executor.shutdown(5_000);
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " requests failed");
        }
    }
}
