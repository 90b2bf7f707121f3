package io.basalt.ha.autoswitch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.basalt.ha.EpochFile;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

/** The AutoSwitch frames against bytes laid out by hand from RocketMQ 5.2.0's AutoSwitchHAClient/Connection. */
class AutoSwitchWireTest {
    private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

    private static String hex(ByteBuf b) {
        return ByteBufUtil.hexDump(b);
    }

    private static ByteBuf bytes(String hex) {
        return Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex.replace(" ", "")));
    }

    @Test
    void slaveHandshakeIsSixteenBytes() {
        ByteBuf b = AutoSwitchWire.encodeSlaveHandshake(ALLOC, new AutoSwitchWire.SlaveHandshake(true, false, 3));
        assertEquals("00000001" + "0001" + "0000" + "0000000000000003", hex(b));
        AutoSwitchWire.SlaveMessage m = AutoSwitchWire.tryDecodeSlaveMessage(b);
        assertEquals(new AutoSwitchWire.SlaveHandshake(true, false, 3), m.handshake());
        assertEquals(0, b.readableBytes());
    }

    @Test
    void slaveReportIsTwelveBytes() {
        ByteBuf b = AutoSwitchWire.encodeSlaveReport(ALLOC, 0x0102030405L);
        assertEquals("00000002" + "0000000102030405", hex(b));
        assertEquals(0x0102030405L, AutoSwitchWire.tryDecodeSlaveMessage(b).reportedOffset());
    }

    @Test
    void partialSlaveMessageReadsNothing() {
        ByteBuf b = bytes("00000001 0000 0000 00000000");
        assertNull(AutoSwitchWire.tryDecodeSlaveMessage(b));
        assertEquals(0, b.readerIndex());
        AutoSwitchWire.ProtocolException e = assertThrows(AutoSwitchWire.ProtocolException.class,
            () -> AutoSwitchWire.tryDecodeSlaveMessage(bytes("00000003 0000000000000000")));
        assertTrue(e.getMessage().contains("state 3"), e.getMessage());
    }

    @Test
    void masterHandshakeCarriesTwelveBytesPerEpoch() {
        ByteBuf b = AutoSwitchWire.encodeMasterHandshake(ALLOC, new AutoSwitchWire.MasterHandshake(0x100000, 2,
            List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 0x80000))));
        assertEquals("00000001" + "00000018" + "0000000000100000" + "00000002"
            + "00000001" + "0000000000000000" + "00000002" + "0000000000080000", hex(b));
        ByteBuf partial = b.retainedSlice(0, 30);
        assertNull(AutoSwitchWire.tryDecodeMasterHandshake(partial));
        AutoSwitchWire.MasterHandshake h = AutoSwitchWire.tryDecodeMasterHandshake(b);
        assertEquals(0x100000, h.masterMaxOffset());
        assertEquals(2, h.lastEpoch());
        assertEquals(List.of(new EpochFile.Entry(1, 0), new EpochFile.Entry(2, 0x80000)), h.epochs());
    }

    @Test
    void transferHeaderIsThirtySixBytes() {
        ByteBuf b = AutoSwitchWire.encodeTransferHeader(ALLOC, new AutoSwitchWire.TransferHeader(4, 0x2000, 7, 0x1000, 0x1800));
        assertEquals("00000002" + "00000004" + "0000000000002000" + "00000007" + "0000000000001000"
            + "0000000000001800", hex(b));
        assertNull(AutoSwitchWire.tryDecodeTransferHeader(b.copy(), 1024)); // body not there yet
        ByteBuf frame = Unpooled.wrappedBuffer(b, bytes("cafebabe"));
        AutoSwitchWire.TransferHeader h = AutoSwitchWire.tryDecodeTransferHeader(frame, 1024);
        assertEquals(new AutoSwitchWire.TransferHeader(4, 0x2000, 7, 0x1000, 0x1800), h);
        assertEquals(4, frame.readableBytes());
    }

    @Test
    void refusesWhatRocketMqCouldNotHaveSent() {
        AutoSwitchWire.ProtocolException big = assertThrows(AutoSwitchWire.ProtocolException.class,
            () -> AutoSwitchWire.tryDecodeTransferHeader(bytes("00000002 00000800" + "00".repeat(28)), 1024));
        assertTrue(big.getMessage().contains("2048 bytes"), big.getMessage());
        assertThrows(AutoSwitchWire.ProtocolException.class,
            () -> AutoSwitchWire.tryDecodeMasterHandshake(bytes("00000001 0000000d" + "00".repeat(12))));
        assertThrows(AutoSwitchWire.ProtocolException.class, () -> AutoSwitchWire.toWireEpoch(1L << 31));
    }
}
