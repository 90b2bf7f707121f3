package io.basalt.remoting.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * RocketMQ's binary header serialization ({@link SerializeType#ROCKETMQ}). Big-endian layout:
 * <pre>
 *   short code | byte language | short version | int opaque | int flag
 *   int remarkLength | remark (UTF-8; length 0 = no remark)
 *   int extFieldsLength | extFieldsLength bytes of entries:
 *       short keyLength | key (UTF-8) | int valueLength | value (UTF-8)
 * </pre>
 * Stateless; any thread.
 */
final class RocketMQHeaderCodec {
    /** Bytes before the remark: code, language, version, opaque, flag. */
    static final int FIXED_PREFIX_LENGTH = 2 + 1 + 2 + 4 + 4;

    private RocketMQHeaderCodec() {
    }

    static void encode(RemotingCommand cmd, ByteWriter out) {
        out.writeShort(cmd.code());
        out.writeByte(cmd.language().code());
        out.writeShort(cmd.version());
        out.writeInt(cmd.opaque());
        out.writeInt(cmd.flag());
        String remark = cmd.remark();
        if (remark == null || remark.isEmpty()) {
            out.writeInt(0);
        } else {
            int lengthIndex = out.position();
            out.writeInt(0);
            out.setInt(lengthIndex, out.writeUtf8(remark));
        }
        int mapLengthIndex = out.position();
        out.writeInt(0);
        CommandHeader header = cmd.header();
        if (header != null && header.writtenAheadOfExtFields()) {
            header.encode((name, value) -> writeEntry(out, name, value));
        }
        Map<String, String> extFields = cmd.extFields();
        if (extFields != null) {
            extFields.forEach((name, value) -> {
                if (name != null && value != null) {
                    writeEntry(out, name, value);
                }
            });
        }
        out.setInt(mapLengthIndex, out.position() - mapLengthIndex - 4);
    }

    private static void writeEntry(ByteWriter out, String name, String value) {
        int keyIndex = out.position();
        out.writeShort(0);
        out.setShort(keyIndex, out.writeUtf8(name));
        int valueIndex = out.position();
        out.writeInt(0);
        out.setInt(valueIndex, out.writeUtf8(value));
    }

    /** Decodes exactly {@code header.remaining()} bytes; anything left over is an error. */
    static RemotingCommand decode(ByteBuffer header) throws RemotingCommandException {
        if (header.remaining() < FIXED_PREFIX_LENGTH + 8) {
            throw new RemotingCommandException("binary header too short: " + header.remaining() + " bytes");
        }
        int code = header.getShort();
        LanguageCode language = LanguageCode.fromCode(header.get());
        int version = header.getShort();
        int opaque = header.getInt();
        int flag = header.getInt();
        String remark;
        HashMap<String, String> extFields;
        try {
            remark = readRemark(header);
            extFields = readExtFields(header);
        } catch (RemotingCommandException e) {
            throw expectsAnswer(flag) ? e.withOpaque(opaque) : e;
        }
        if (header.hasRemaining()) {
            RemotingCommandException e = new RemotingCommandException(header.remaining()
                + " stray bytes after the binary header");
            throw expectsAnswer(flag) ? e.withOpaque(opaque) : e;
        }
        RemotingCommand cmd = new RemotingCommand(code, language, version, opaque, flag, remark, extFields);
        cmd.setSerializeType(SerializeType.ROCKETMQ);
        return cmd;
    }

    /** A request that is not one-way: its sender waits for an answer, even to a broken request. */
    private static boolean expectsAnswer(int flag) {
        return (flag & (RemotingCommand.RESPONSE_FLAG | RemotingCommand.ONEWAY_FLAG)) == 0;
    }

    private static String readRemark(ByteBuffer header) throws RemotingCommandException {
        int remarkLength = header.getInt();
        return remarkLength == 0 ? null : readUtf8(header, remarkLength, "remark");
    }

    private static HashMap<String, String> readExtFields(ByteBuffer header) throws RemotingCommandException {
        if (header.remaining() < 4) {
            throw new RemotingCommandException("binary header ends before its extFields length");
        }
        int extFieldsLength = readLength(header, header.getInt(), "extFields");
        if (extFieldsLength == 0) {
            return null;
        }
        int end = header.position() + extFieldsLength;
        HashMap<String, String> extFields = new HashMap<>();
        while (header.position() < end) {
            if (end - header.position() < 6) {
                throw new RemotingCommandException("truncated extFields entry");
            }
            String key = readUtf8(header, header.getShort(), "extFields key");
            if (end - header.position() < 4) {
                throw new RemotingCommandException("truncated extFields entry");
            }
            int valueLength = header.getInt();
            // RocketMQ reads a zero-length value as null: the entry is absent.
            String value = valueLength == 0 ? null : readUtf8(header, valueLength, "extFields value");
            if (header.position() > end) {
                throw new RemotingCommandException("extFields entry crosses the extFields length");
            }
            if (value != null) {
                extFields.put(key, value);
            }
        }
        return extFields;
    }

    private static int readLength(ByteBuffer buf, int length, String what) throws RemotingCommandException {
        if (length < 0 || length > buf.remaining()) {
            throw new RemotingCommandException(what + " length " + length + " outside the "
                + buf.remaining() + " header bytes left");
        }
        return length;
    }

    private static String readUtf8(ByteBuffer buf, int length, String what) throws RemotingCommandException {
        readLength(buf, length, what);
        String text;
        if (buf.hasArray()) {
            text = new String(buf.array(), buf.arrayOffset() + buf.position(), length, StandardCharsets.UTF_8);
            buf.position(buf.position() + length);
        } else {
            byte[] bytes = new byte[length];
            buf.get(bytes);
            text = new String(bytes, StandardCharsets.UTF_8);
        }
        return text;
    }
}
