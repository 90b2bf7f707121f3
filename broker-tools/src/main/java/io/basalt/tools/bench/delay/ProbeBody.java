package io.basalt.tools.bench.delay;

import java.nio.ByteBuffer;

/**
 * The body of every benchmark message: a sequence number and the epoch millisecond at which the message is
 * due, then filler up to the requested size. The consumer reads both back, so lateness needs no state shared
 * with the sender.
 *
 * @param sequence unique per run, 0-based
 * @param dueMs when the broker should deliver it; for delay levels the sender's estimate (send time + level's delay)
 */
public record ProbeBody(long sequence, long dueMs) {
    public static final int MIN_SIZE = 16;

    public byte[] encode(int size) {
        ByteBuffer buf = ByteBuffer.allocate(Math.max(MIN_SIZE, size));
        buf.putLong(sequence).putLong(dueMs);
        while (buf.hasRemaining()) {
            buf.put((byte) 'x');
        }
        return buf.array();
    }

    public static ProbeBody decode(byte[] body) {
        if (body == null || body.length < MIN_SIZE) {
            throw new IllegalArgumentException("not a benchmark body (" + (body == null ? "null" : body.length + " bytes") + ")");
        }
        ByteBuffer buf = ByteBuffer.wrap(body);
        return new ProbeBody(buf.getLong(), buf.getLong());
    }
}
