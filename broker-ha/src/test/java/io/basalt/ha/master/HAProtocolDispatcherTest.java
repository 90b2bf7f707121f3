package io.basalt.ha.master;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.basalt.ha.HAWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

/** A connection's first bytes choose its protocol, in the list's order. */
class HAProtocolDispatcherTest {
    private static final List<HAProtocol> STANDARD = List.of(HAProtocolDispatcher.BASALT, HAProtocolDispatcher.CLASSIC);

    @Test
    void basaltMagicIsBasalt() {
        ByteBuf hello = Unpooled.buffer().writeInt(HAWire.MAGIC).writeInt(HAWire.VERSION);
        assertSame(HAProtocolDispatcher.BASALT, HAProtocolDispatcher.choose(STANDARD, hello));
        assertSame(0, hello.readerIndex(), "matching reads nothing");
    }

    @Test
    void anOffsetReportIsClassic() {
        assertSame(HAProtocolDispatcher.CLASSIC, HAProtocolDispatcher.choose(STANDARD, Unpooled.buffer().writeLong(0)));
        // the largest offset a CommitLog can have in practice still does not look like the magic
        assertSame(HAProtocolDispatcher.CLASSIC,
            HAProtocolDispatcher.choose(STANDARD, Unpooled.buffer().writeLong((1L << 62) - 1)));
    }

    @Test
    void fewerBytesThanTheMagicWait() {
        assertNull(HAProtocolDispatcher.choose(STANDARD, Unpooled.buffer().writeShort(0x4253)));
    }

    @Test
    void aProtocolBeforeTheFallbackTakesWhatItMatches() {
        HAProtocol firstIntOne = new HAProtocol() {
            @Override
            public String name() {
                return "THIRD";
            }

            @Override
            public Match match(ByteBuf in) {
                if (in.readableBytes() < 4) {
                    return Match.NEED_MORE;
                }
                return in.getInt(in.readerIndex()) == 1 ? Match.YES : Match.NO;
            }

            @Override
            public ReplicaConnection open(HAService service, Channel channel) {
                throw new UnsupportedOperationException();
            }
        };
        List<HAProtocol> three = List.of(HAProtocolDispatcher.BASALT, firstIntOne, HAProtocolDispatcher.CLASSIC);
        assertSame(firstIntOne, HAProtocolDispatcher.choose(three, Unpooled.buffer().writeInt(1).writeInt(0)));
        assertSame(HAProtocolDispatcher.CLASSIC, HAProtocolDispatcher.choose(three, Unpooled.buffer().writeLong(4096)));
        assertSame(HAProtocolDispatcher.BASALT, HAProtocolDispatcher.choose(three, Unpooled.buffer().writeInt(HAWire.MAGIC)));
    }
}
