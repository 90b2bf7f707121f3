package io.basalt.remoting.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestDispatcher;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** A body given as buffer slices is written as it is (wrapped, not copied) and released after the write. */
class SliceBodyTest {

    private static ByteBuffer directSlice(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length + 8);
        b.position(4);
        b.put(bytes);
        b.flip();
        b.position(4);
        return b.slice().asReadOnlyBuffer();
    }

    @Test
    void encoderWrapsTheSlicesAndTheFrameEqualsTheCopiedEncoding() {
        RemotingCommand cmd = RemotingCommand.response(ResponseCode.SUCCESS, "FOUND");
        cmd.setBodySlices(new ByteBuffer[] {directSlice("first-"), directSlice("second")}, () -> { });
        assertEquals(12, cmd.bodyLength());
        EmbeddedChannel channel = new EmbeddedChannel(RemotingCommandEncoder.INSTANCE);
        channel.writeOutbound(cmd);
        ByteBuf out = channel.readOutbound();
        try {
            assertTrue(out.nioBufferCount() >= 3, "prefix and both slices are separate wrapped buffers");
            byte[] wire = new byte[out.readableBytes()];
            out.readBytes(wire);
            assertArrayEquals(cmd.encode(), wire);
        } finally {
            out.release();
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void dispatcherReleasesTheSlicesOnceTheResponseIsWritten() throws Exception {
        AtomicInteger released = new AtomicInteger();
        RequestDispatcher dispatcher = new RequestDispatcher();
        RequestExecutor executor = RequestExecutor.create("SliceTest_", 1, 16, 0);
        dispatcher.register(11, (ctx, req) -> {
            RemotingCommand r = RemotingCommand.response(ResponseCode.SUCCESS, null);
            r.setBodySlices(new ByteBuffer[] {directSlice("x")}, released::incrementAndGet);
            return CompletableFuture.completedFuture(r);
        }, executor);
        CompletableFuture<Integer> releasedAtWrite = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        dispatcher.dispatch(RemotingCommand.request(11), new RequestContext(null, null, null, 0), (response, whenDone) -> {
            releasedAtWrite.complete(released.get());
            whenDone.run();
            done.complete(null);
        });
        done.get();
        assertEquals(0, releasedAtWrite.get(), "not released before the write");
        assertEquals(1, released.get());
        executor.shutdown(5000);
    }
}
