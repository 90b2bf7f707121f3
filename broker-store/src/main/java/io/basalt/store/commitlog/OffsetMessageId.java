package io.basalt.store.commitlog;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * RocketMQ's "offset message id": the store host address, its port and the record's physical
 * offset, as upper-case hex. 32 characters for an IPv4 store host (4 + 4 + 8 bytes), 56 for IPv6
 * (16 + 4 + 8). Clients use it to look a message up by offset (VIEW_MESSAGE_BY_ID).
 *
 * @param storeHost      the broker address that stored the message
 * @param physicalOffset global CommitLog offset of the record
 */
public record OffsetMessageId(InetSocketAddress storeHost, long physicalOffset) {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Encodes from the raw store host address (4 or 16 bytes) and port. */
    public static String encode(byte[] storeHostAddress, int storePort, long physicalOffset) {
        if (storeHostAddress.length != 4 && storeHostAddress.length != 16) {
            throw new IllegalArgumentException("store host address must have 4 or 16 bytes, not " + storeHostAddress.length);
        }
        char[] out = new char[(storeHostAddress.length + 4 + 8) * 2];
        int p = 0;
        for (byte b : storeHostAddress) {
            p = hex(out, p, b);
        }
        for (int shift = 24; shift >= 0; shift -= 8) {
            p = hex(out, p, (byte) (storePort >>> shift));
        }
        for (int shift = 56; shift >= 0; shift -= 8) {
            p = hex(out, p, (byte) (physicalOffset >>> shift));
        }
        return new String(out);
    }

    public static String encode(InetSocketAddress storeHost, long physicalOffset) {
        return encode(storeHost.getAddress().getAddress(), storeHost.getPort(), physicalOffset);
    }

    /** Parses a 32- or 56-character id; throws IllegalArgumentException naming the problem. */
    public static OffsetMessageId decode(String msgId) {
        if (msgId == null || (msgId.length() != 32 && msgId.length() != 56)) {
            throw new IllegalArgumentException("offset message id must have 32 or 56 hex digits: " + msgId);
        }
        byte[] bytes = new byte[msgId.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            int hi = hexValue(msgId.charAt(2 * i));
            int lo = hexValue(msgId.charAt(2 * i + 1));
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("offset message id is not hex: " + msgId);
            }
            bytes[i] = (byte) (hi << 4 | lo);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        byte[] ip = new byte[msgId.length() == 32 ? 4 : 16];
        buf.get(ip);
        int port = buf.getInt();
        long offset = buf.getLong();
        try {
            return new OffsetMessageId(new InetSocketAddress(InetAddress.getByAddress(ip), port), offset);
        } catch (UnknownHostException | IllegalArgumentException e) {
            throw new IllegalArgumentException("bad address in offset message id " + msgId, e);
        }
    }

    /** Value of an ASCII hex digit (either case), -1 for anything else. */
    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    private static int hex(char[] out, int p, byte b) {
        out[p] = HEX[(b >>> 4) & 0xF];
        out[p + 1] = HEX[b & 0xF];
        return p + 2;
    }
}
