package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.remoting.protocol.LanguageCode;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.SerializeType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Feeds random and mutated frames, in random chunks, to the frame decoder: nothing escapes as an
 * exception, every good frame decodes, and Netty's paranoid leak detector reports no leaked buffer.
 */
class RemotingFrameDecoderFuzzTest {
    private static final int MAX_FRAME = 64 * 1024;
    private final ListAppender<ILoggingEvent> leaks = new ListAppender<>();
    private Logger leakLogger;

    @BeforeEach
    void watchLeakReports() {
        leakLogger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
        leakLogger.setLevel(Level.ERROR);
        leaks.start();
        leakLogger.addAppender(leaks);
    }

    @AfterEach
    void stopWatching() {
        leakLogger.detachAppender(leaks);
    }

    @Test
    void leakDetectorIsParanoidAndReportsALeakedBuffer() {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
        PooledByteBufAllocator.DEFAULT.directBuffer(64).writeLong(1); // dropped on purpose, never released
        await().atMost(ofSeconds(30)).until(() -> {
            provokeLeakReports();
            return leakReports() > 0;
        });
    }

    @Test
    void randomAndMutatedFramesNeverEscapeOrLeak() {
        Random random = new Random(20240611L);
        int decoded = 0;
        int closed = 0;
        for (int round = 0; round < 3000; round++) {
            List<byte[]> goodFrames = new ArrayList<>();
            byte[] stream = streamOfFrames(random, goodFrames);
            int mutation = random.nextInt(4);
            boolean mutated = mutation != 0;
            if (mutation == 1) {
                for (int flips = 1 + random.nextInt(4); flips > 0 && stream.length > 0; flips--) {
                    stream[random.nextInt(stream.length)] = (byte) random.nextInt(256);
                }
            } else if (mutation == 2 && stream.length > 1) {
                byte[] cut = new byte[random.nextInt(stream.length)];
                System.arraycopy(stream, 0, cut, 0, cut.length);
                stream = cut;
            } else if (mutation == 3) {
                random.nextBytes(stream);
            }
            boolean[] malformed = new boolean[1];
            EmbeddedChannel channel = new EmbeddedChannel(new RemotingFrameDecoder(MAX_FRAME, (ctx, reason, opaque) -> {
                malformed[0] = true;
                ctx.close();
            }));
            int offset = 0;
            while (offset < stream.length && channel.isOpen()) {
                int chunk = Math.min(stream.length - offset, 1 + random.nextInt(300));
                ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(chunk);
                buf.writeBytes(stream, offset, chunk);
                offset += chunk;
                channel.writeInbound(buf);
                channel.checkException();
            }
            List<RemotingCommand> out = new ArrayList<>();
            for (Object msg; (msg = channel.readInbound()) != null; ) {
                out.add((RemotingCommand) msg);
            }
            channel.finishAndReleaseAll();
            if (!mutated) {
                assertEquals(goodFrames.size(), out.size(), "every intact frame decodes");
                for (int i = 0; i < out.size(); i++) {
                    assertArrayEquals(goodFrames.get(i), out.get(i).encode());
                }
                assertTrue(!malformed[0]);
            }
            decoded += out.size();
            closed += malformed[0] ? 1 : 0;
        }
        assertTrue(decoded > 1000, "decoded " + decoded);
        assertTrue(closed > 100, "closed " + closed);
        for (int i = 0; i < 5; i++) {
            provokeLeakReports();
        }
        assertEquals(0, leakReports(), () -> "leak reported: " + leaks.list.get(0).getFormattedMessage());
    }

    private static byte[] streamOfFrames(Random random, List<byte[]> frames) {
        int count = 1 + random.nextInt(4);
        int total = 0;
        for (int i = 0; i < count; i++) {
            RemotingCommand cmd = RemotingCommand.request(random.nextInt(400));
            cmd.setSerializeType(random.nextBoolean() ? SerializeType.JSON : SerializeType.ROCKETMQ);
            cmd.setLanguage(LanguageCode.values()[random.nextInt(LanguageCode.values().length)]);
            cmd.setFlag(random.nextInt(4));
            if (random.nextBoolean()) {
                cmd.setRemark(randomText(random, 20));
            }
            for (int f = random.nextInt(5); f > 0; f--) {
                cmd.putExtField(randomText(random, 8) + f, randomText(random, 30));
            }
            if (random.nextBoolean()) {
                byte[] body = new byte[random.nextInt(2000)];
                random.nextBytes(body);
                cmd.setBody(body);
            }
            byte[] frame = cmd.encode();
            frames.add(frame);
            total += frame.length;
        }
        byte[] stream = new byte[total];
        int at = 0;
        for (byte[] frame : frames) {
            System.arraycopy(frame, 0, stream, at, frame.length);
            at += frame.length;
        }
        return stream;
    }

    private static String randomText(Random random, int maxLength) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1 + random.nextInt(maxLength); i > 0; i--) {
            int kind = random.nextInt(10);
            sb.append(kind < 7 ? (char) ('a' + random.nextInt(26)) : kind < 9 ? (char) random.nextInt(0x40) : (char) (0x4E00 + random.nextInt(100)));
        }
        return sb.toString();
    }

    /** Leaks are reported when a tracked buffer is allocated after the leaked one was collected. */
    private static void provokeLeakReports() {
        System.gc();
        for (int i = 0; i < 200; i++) {
            ReferenceCountUtil.release(PooledByteBufAllocator.DEFAULT.directBuffer(16));
            ReferenceCountUtil.release(PooledByteBufAllocator.DEFAULT.heapBuffer(16));
        }
    }

    private int leakReports() {
        return (int) leaks.list.stream().filter(e -> e.getFormattedMessage().contains("LEAK")).count();
    }
}
