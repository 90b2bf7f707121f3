package io.basalt.remoting.protocol;

import java.util.Arrays;

/**
 * A growable big-endian byte array for building command headers. Strings are written as UTF-8 with
 * the same replacement rule as {@code String.getBytes(UTF_8)} (an unpaired surrogate becomes '?').
 * Not thread-safe: one encoding at a time.
 */
final class ByteWriter {
    private byte[] buf;
    private int position;

    ByteWriter(int initialCapacity) {
        this.buf = new byte[Math.max(16, initialCapacity)];
    }

    int position() {
        return position;
    }

    void writeByte(int value) {
        ensure(1);
        buf[position++] = (byte) value;
    }

    void writeShort(int value) {
        ensure(2);
        buf[position++] = (byte) (value >>> 8);
        buf[position++] = (byte) value;
    }

    void writeInt(int value) {
        ensure(4);
        setInt(position, value);
        position += 4;
    }

    void setInt(int index, int value) {
        buf[index] = (byte) (value >>> 24);
        buf[index + 1] = (byte) (value >>> 16);
        buf[index + 2] = (byte) (value >>> 8);
        buf[index + 3] = (byte) value;
    }

    void setShort(int index, int value) {
        buf[index] = (byte) (value >>> 8);
        buf[index + 1] = (byte) value;
    }

    /** Appends {@code text} as UTF-8 and returns the number of bytes written. */
    int writeUtf8(CharSequence text) {
        int start = position;
        int length = text.length();
        ensure(length);
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                if (position == buf.length) {
                    ensure(1);
                }
                buf[position++] = (byte) c;
            } else if (c < 0x800) {
                ensure(2);
                buf[position++] = (byte) (0xC0 | (c >> 6));
                buf[position++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                    int codePoint = Character.toCodePoint(c, text.charAt(++i));
                    ensure(4);
                    buf[position++] = (byte) (0xF0 | (codePoint >> 18));
                    buf[position++] = (byte) (0x80 | ((codePoint >> 12) & 0x3F));
                    buf[position++] = (byte) (0x80 | ((codePoint >> 6) & 0x3F));
                    buf[position++] = (byte) (0x80 | (codePoint & 0x3F));
                } else {
                    ensure(1);
                    buf[position++] = '?';
                }
            } else {
                ensure(3);
                buf[position++] = (byte) (0xE0 | (c >> 12));
                buf[position++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buf[position++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return position - start;
    }

    /** Appends ASCII text (JSON punctuation and names); each char must be below 0x80. */
    void writeAscii(String text) {
        int length = text.length();
        ensure(length);
        for (int i = 0; i < length; i++) {
            buf[position++] = (byte) text.charAt(i);
        }
    }

    void writeDecimal(long value) {
        writeAscii(Long.toString(value));
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, position);
    }

    private void ensure(int extra) {
        if (position + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, position + extra));
        }
    }
}
