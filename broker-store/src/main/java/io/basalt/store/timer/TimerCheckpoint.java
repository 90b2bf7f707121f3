package io.basalt.store.timer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code config/timercheck}, byte-compatible with RocketMQ 5.2.0's {@code TimerCheckpoint}: a 4096-byte
 * file whose first 56 bytes are (big-endian longs) lastReadTimeMs, lastTimerLogFlushPos,
 * lastTimerQueueOffset, masterTimerQueueOffset and the dataVersion (stateVersion, timestamp, counter).
 * RocketMQ leaves the rest zero; Basalt writes at byte 56 the marker {@link #PRECISION_MARKER} and at 60 the
 * {@code timerPrecisionMs} the wheel was written with, so that a changed precision is refused at start
 * (RocketMQ ignores those bytes). Written in place with a positional write and force() by the flush
 * thread; the fields are plain values owned by the timer engine.
 */
public final class TimerCheckpoint {
    public static final int FILE_SIZE = 4096;
    public static final int BODY_SIZE = 56;
    /** "BSTP": the bytes after it hold the wheel's precision. */
    public static final int PRECISION_MARKER = 0x42535450;

    /** The 56 bytes RocketMQ knows; {@code precisionMs} is 0 when the file carries no Basalt marker. */
    public record Values(long lastReadTimeMs, long lastTimerLogFlushPos, long lastTimerQueueOffset,
                         long masterTimerQueueOffset, long stateVersion, long timestamp, long counter, int precisionMs) {
        public static final Values NONE = new Values(0, 0, 0, 0, 0, 0, 0, 0);

        /** The GET_TIMER_CHECK_POINT body: exactly the first 56 bytes. */
        public byte[] body() {
            ByteBuffer b = ByteBuffer.allocate(BODY_SIZE);
            b.putLong(lastReadTimeMs).putLong(lastTimerLogFlushPos).putLong(lastTimerQueueOffset)
                .putLong(masterTimerQueueOffset).putLong(stateVersion).putLong(timestamp).putLong(counter);
            return b.array();
        }

        /**
         * Parses a GET_TIMER_CHECK_POINT body or the file: 32 bytes (older brokers, no dataVersion), 56, or
         * the whole file (with the precision marker).
         */
        public static Values parse(byte[] bytes) {
            if (bytes.length < 32) {
                throw new IllegalArgumentException("a timer checkpoint has at least 32 bytes, not " + bytes.length);
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            long read = b.getLong(0);
            long flushPos = b.getLong(8);
            long queueOffset = b.getLong(16);
            long master = b.getLong(24);
            long state = bytes.length >= BODY_SIZE ? b.getLong(32) : 0;
            long ts = bytes.length >= BODY_SIZE ? b.getLong(40) : 0;
            long counter = bytes.length >= BODY_SIZE ? b.getLong(48) : 0;
            int precision = bytes.length >= BODY_SIZE + 8 && b.getInt(BODY_SIZE) == PRECISION_MARKER ? b.getInt(BODY_SIZE + 4) : 0;
            return new Values(read, flushPos, queueOffset, master, state, ts, counter, precision);
        }
    }

    private final Path file;

    public TimerCheckpoint(Path file) {
        this.file = file;
    }

    public Path file() {
        return file;
    }

    /** The stored values, or {@link Values#NONE} when there is no file yet. */
    public Values read() throws IOException {
        if (!Files.exists(file)) {
            return Values.NONE;
        }
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < 32) {
            return Values.NONE;
        }
        return Values.parse(bytes);
    }

    /** Writes {@code values} (and the precision marker) in place and forces the file. */
    public void write(Values values, int precisionMs) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        ByteBuffer b = ByteBuffer.allocate(FILE_SIZE);
        b.put(values.body());
        b.putInt(PRECISION_MARKER).putInt(precisionMs);
        b.clear();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.READ)) {
            while (b.hasRemaining()) {
                ch.write(b, b.position());
            }
            ch.force(false);
        }
    }
}
