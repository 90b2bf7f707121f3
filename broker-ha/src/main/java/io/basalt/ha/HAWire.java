package io.basalt.ha;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Basalt's HA wire format: a short handshake, then RocketMQ's classic stream. All integers are
 * big-endian.
 *
 * <pre>
 * 1. slave → master  HELLO (34 + a bytes)
 *      0  int   magic 0x42534C54 ("BSLT"; as the high half of a classic 8-byte offset report it
 *                                  would mean an offset above 2^62, so the two cannot be confused)
 *      4  int   version (1)
 *      8  long  slaveEpoch       newest master generation the slave has followed (0: none)
 *     16  long  slaveMaxOffset   end of the slave's CommitLog
 *     24  long  brokerId         the slave's brokerId (route data lists it)
 *     32  short a                length of the slave's remoting address, then a bytes UTF-8 host:port
 *    A master whose own epoch is older than slaveEpoch has been deposed: it fences itself (stops
 *    accepting writes) and closes the connection. A promoted slave sends its previous master this
 *    HELLO with the new epoch as a step-down notice ({@link StepDownNotice}).
 * 2. master → slave  WELCOME (38 + 16·n + a bytes)
 *      0  int   magic, 4 int version
 *      8  long  masterEpoch      the master's current generation
 *     16  long  masterMinOffset  oldest offset the master still holds
 *     24  long  masterMaxOffset  end of the master's CommitLog at handshake time
 *     32  int   n                number of epoch entries, then n × (long epoch, long startOffset)
 *     36+16n short a             length of the master's remoting address, then a bytes UTF-8 host:port
 *    The slave refuses a master whose epoch is older than its own (a deposed master), truncates
 *    its log to {@link EpochFile#lastCommonOffset} when it ran past it, adopts the master's list.
 * 3. slave → master  REQUEST: long startOffset (8 bytes), the first classic offset report; the
 *    master closes the connection unless masterMinOffset ≤ startOffset ≤ its max offset.
 * 4. master → slave  DATA frames, RocketMQ's classic framing:
 *      0  long  physicalOffset of the first body byte
 *      8  int   bodySize (0 = heartbeat; its offset is the next offset the master will send)
 *     12  bodySize raw CommitLog bytes (never spanning two files)
 * 5. slave → master  ACK reports: long slaveMaxOffset (8 bytes) after applying data and every
 *    heartbeat interval. The master closes the connection on an ack beyond what it sent, beyond its
 *    own end, or below an earlier ack.
 * </pre>
 */
public final class HAWire {
    public static final int MAGIC = 0x42534C54;
    public static final int VERSION = 1;
    public static final int HELLO_FIXED_LENGTH = 34;
    public static final int WELCOME_HEADER_LENGTH = 36;
    /** Bounds an address field (a host:port is far shorter). */
    public static final int MAX_ADDRESS_LENGTH = 512;
    public static final int DATA_HEADER_LENGTH = 12;
    public static final int REPORT_LENGTH = 8;
    /** Bounds a WELCOME's entry count before anything is allocated for it. */
    public static final int MAX_EPOCH_ENTRIES = 65536;

    private HAWire() {
    }

    public record Hello(long slaveEpoch, long slaveMaxOffset, long brokerId, String brokerAddr) {
    }

    public record Welcome(long masterEpoch, long masterMinOffset, long masterMaxOffset, List<EpochFile.Entry> epochs,
                          String brokerAddr) {
    }

    public static ByteBuf encodeHello(ByteBufAllocator alloc, Hello hello) {
        byte[] addr = hello.brokerAddr().getBytes(StandardCharsets.UTF_8);
        return alloc.buffer(HELLO_FIXED_LENGTH + addr.length).writeInt(MAGIC).writeInt(VERSION)
            .writeLong(hello.slaveEpoch()).writeLong(hello.slaveMaxOffset()).writeLong(hello.brokerId())
            .writeShort(addr.length).writeBytes(addr);
    }

    /**
     * Reads a HELLO if it is complete (reader index unchanged and null otherwise); throws
     * {@link HAProtocolException} on a bad one, as soon as its first 8 bytes are there.
     */
    public static Hello tryDecodeHello(ByteBuf in) {
        if (in.readableBytes() < 8) {
            return null;
        }
        int at = in.readerIndex();
        checkMagicAndVersion(in.getInt(at), in.getInt(at + 4));
        if (in.readableBytes() < HELLO_FIXED_LENGTH) {
            return null;
        }
        int a = addressLength(in.getUnsignedShort(at + 32));
        if (in.readableBytes() < HELLO_FIXED_LENGTH + a) {
            return null;
        }
        in.skipBytes(8);
        long epoch = in.readLong();
        long max = in.readLong();
        long brokerId = in.readLong();
        in.skipBytes(2);
        return new Hello(epoch, max, brokerId, in.readCharSequence(a, StandardCharsets.UTF_8).toString());
    }

    private static int addressLength(int a) {
        if (a > MAX_ADDRESS_LENGTH) {
            throw new HAProtocolException("address of " + a + " bytes");
        }
        return a;
    }

    public static ByteBuf encodeWelcome(ByteBufAllocator alloc, Welcome w) {
        byte[] addr = w.brokerAddr().getBytes(StandardCharsets.UTF_8);
        ByteBuf out = alloc.buffer(WELCOME_HEADER_LENGTH + 16 * w.epochs().size() + 2 + addr.length);
        out.writeInt(MAGIC).writeInt(VERSION).writeLong(w.masterEpoch()).writeLong(w.masterMinOffset())
            .writeLong(w.masterMaxOffset()).writeInt(w.epochs().size());
        for (EpochFile.Entry e : w.epochs()) {
            out.writeLong(e.epoch()).writeLong(e.startOffset());
        }
        return out.writeShort(addr.length).writeBytes(addr);
    }

    /**
     * Reads a WELCOME if it is complete (reader index unchanged and null otherwise); throws
     * {@link HAProtocolException} on a bad one.
     */
    public static Welcome tryDecodeWelcome(ByteBuf in) {
        if (in.readableBytes() < WELCOME_HEADER_LENGTH) {
            return null;
        }
        int at = in.readerIndex();
        checkMagicAndVersion(in.getInt(at), in.getInt(at + 4));
        int n = in.getInt(at + 32);
        if (n < 0 || n > MAX_EPOCH_ENTRIES) {
            throw new HAProtocolException("WELCOME with " + n + " epoch entries");
        }
        int addrAt = WELCOME_HEADER_LENGTH + 16 * n;
        if (in.readableBytes() < addrAt + 2) {
            return null;
        }
        int a = addressLength(in.getUnsignedShort(at + addrAt));
        if (in.readableBytes() < addrAt + 2 + a) {
            return null;
        }
        in.skipBytes(8);
        long epoch = in.readLong();
        long min = in.readLong();
        long max = in.readLong();
        in.skipBytes(4);
        List<EpochFile.Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(new EpochFile.Entry(in.readLong(), in.readLong()));
        }
        in.skipBytes(2);
        String addr = in.readCharSequence(a, StandardCharsets.UTF_8).toString();
        return new Welcome(epoch, min, max, List.copyOf(entries), addr);
    }

    private static void checkMagicAndVersion(int magic, int version) {
        if (magic != MAGIC) {
            throw new HAProtocolException(String.format("bad magic 0x%08X (not a Basalt HA peer)", magic));
        }
        if (version != VERSION) {
            throw new HAProtocolException("unsupported HA protocol version " + version);
        }
    }

    /** A peer broke the protocol; the connection is closed. */
    public static final class HAProtocolException extends RuntimeException {
        public HAProtocolException(String message) {
            super(message);
        }
    }
}
