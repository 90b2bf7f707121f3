package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.remoting.processor.RequestDispatcher;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.HashedWheelTimer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The encoder and the server connection handler on an {@link EmbeddedChannel}, without sockets. */
class CodecHandlersTest {

    @Test
    void encoderWrapsTheBodyWithoutCopyingIt() {
        EmbeddedChannel channel = new EmbeddedChannel(RemotingCommandEncoder.INSTANCE);
        RemotingCommand cmd = RemotingCommand.request(10);
        byte[] body = new byte[1000];
        cmd.setBody(body);
        assertTrue(channel.writeOutbound(cmd));
        ByteBuf out = channel.readOutbound();
        try {
            assertTrue(out instanceof CompositeByteBuf);
            CompositeByteBuf composite = (CompositeByteBuf) out;
            assertEquals(2, composite.numComponents());
            assertSame(body, composite.component(1).array(), "the body array itself goes to the transport");
            assertArrayEquals(cmd.encode(), ByteBufUtil.getBytes(out));
        } finally {
            out.release();
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void responseFromAnotherThreadIsWrittenOnTheEventLoop() throws Exception {
        EventLoopGroup loop = new DefaultEventLoopGroup(1, Transport.namedThreads("TestLoop_%d_%d", 1));
        AtomicReference<ServerConnectionHandler> handler = new AtomicReference<>();
        AtomicReference<String> writer = new AtomicReference<>();
        HashedWheelTimer timer = new HashedWheelTimer(Transport.namedThreads("TestTimer", 1));
        LocalAddress address = new LocalAddress("codec-handlers-test");
        try {
            Channel server = new ServerBootstrap().group(loop).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        handler.set(new ServerConnectionHandler(new RequestDispatcher(), new AtomicInteger(),
                            new PendingRequests(timer), new ConnectionCloses(), 0));
                        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                            @Override
                            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                                writer.set(Thread.currentThread().getName());
                                promise.setSuccess();
                            }
                        }, handler.get());
                    }
                }).bind(address).sync().channel();
            Channel client = new Bootstrap().group(loop).channel(LocalChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
            await().atMost(ofSeconds(10)).until(() -> handler.get() != null);
            CountDownLatch done = new CountDownLatch(1);
            handler.get().write(RemotingCommand.response(ResponseCode.SUCCESS, "async"), done::countDown);
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertTrue(writer.get().startsWith("TestLoop_"), writer.get());
            client.close().sync();
            server.close().sync();
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            timer.stop();
        }
    }
    @Test
    void responsesWrittenInABurstLeaveWithOneFlush() throws Exception {
        EventLoopGroup loop = new DefaultEventLoopGroup(1, Transport.namedThreads("TestLoop_%d_%d", 1));
        AtomicReference<ServerConnectionHandler> handler = new AtomicReference<>();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger flushes = new AtomicInteger();
        HashedWheelTimer timer = new HashedWheelTimer(Transport.namedThreads("TestTimer", 1));
        LocalAddress address = new LocalAddress("codec-handlers-flush-test");
        try {
            Channel server = new ServerBootstrap().group(loop).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        handler.set(new ServerConnectionHandler(new RequestDispatcher(), new AtomicInteger(),
                            new PendingRequests(timer), new ConnectionCloses(), 0));
                        ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                            @Override
                            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                                writes.incrementAndGet();
                                promise.setSuccess();
                            }

                            @Override
                            public void flush(ChannelHandlerContext ctx) {
                                flushes.incrementAndGet();
                            }
                        }, handler.get());
                    }
                }).bind(address).sync().channel();
            Channel client = new Bootstrap().group(loop).channel(LocalChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
            await().atMost(ofSeconds(10)).until(() -> handler.get() != null);
            loop.submit(() -> { }).sync();
            flushes.set(0);     // whatever setting up the connection flushed

            // a group commit completes three sends at once: their writes run on the event loop back to back
            CountDownLatch done = new CountDownLatch(3);
            loop.submit(() -> {
                for (int i = 0; i < 3; i++) {
                    handler.get().write(RemotingCommand.response(ResponseCode.SUCCESS, "burst " + i), done::countDown);
                }
                assertEquals(0, flushes.get(), "the flush waits behind the writes");
            }).sync();
            assertTrue(done.await(10, TimeUnit.SECONDS));
            loop.submit(() -> { }).sync();
            assertEquals(3, writes.get());
            assertEquals(1, flushes.get(), "one flush for the burst");

            handler.get().write(RemotingCommand.response(ResponseCode.SUCCESS, "later"), () -> { });
            await().atMost(ofSeconds(10)).until(() -> flushes.get() == 2);
            client.close().sync();
            server.close().sync();
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            timer.stop();
        }
    }
}
