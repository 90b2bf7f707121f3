package io.basalt.store.timer;

import io.basalt.store.mappedfile.Unmapper;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code timerwheel} file, byte-compatible with RocketMQ 5.2.0's {@code TimerWheel}: 1 209 600 slots of
 * 32 bytes, slot index {@code (timeMs / precisionMs) % 1 209 600}. A slot holds (big-endian) the slot time in
 * precision units, the timer-log offsets of its first and newest unit, the number of live entries and a
 * magic (kept 0). A slot whose stored time is not the one asked for is empty (the wheel wrapped or it was
 * never written).
 *
 * <p>Unlike RocketMQ, which keeps a second full copy on the heap, the mapping is the only copy: the
 * wheel's memory is its fixed file size whatever the number of pending timers. Writes go straight into
 * the mapping; {@link #flush()} forces it. Methods are synchronized: the enqueue thread writes slots,
 * the dequeue thread, the flow control on senders' threads and the stats read them.
 */
public final class TimerWheel implements AutoCloseable {
    public static final int SLOTS = 2 * 7 * 86_400;
    public static final int SLOT_SIZE = 32;
    public static final long FILE_SIZE = (long) SLOTS * SLOT_SIZE;

    private final Path file;
    private final long precisionMs;
    private final FileChannel channel;
    private MappedByteBuffer mapped;

    /** One slot's content; {@link #EMPTY} when the slot holds nothing for the time asked. */
    public record Slot(long timeMs, long firstPos, long lastPos, int num, int magic) {
        public static final Slot EMPTY = new Slot(-1, -1, -1, 0, 0);

        public boolean isEmpty() {
            return firstPos < 0 || lastPos < 0;
        }
    }

    private TimerWheel(Path file, long precisionMs, FileChannel channel, MappedByteBuffer mapped) {
        this.file = file;
        this.precisionMs = precisionMs;
        this.channel = channel;
        this.mapped = mapped;
    }

    /**
     * Maps {@code file}, creating it (sparse, all slots empty) when missing.
     *
     * @throws IOException when an existing file has another length ("Timer wheel length ... != expected ...")
     */
    public static TimerWheel open(Path file, long precisionMs) throws IOException {
        boolean existed = Files.exists(file);
        if (existed && Files.size(file) != FILE_SIZE) {
            throw new IOException("Timer wheel length:" + Files.size(file) + " != expected:" + FILE_SIZE + " (" + file + ")");
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            if (!existed) {
                raf.setLength(FILE_SIZE);
            }
        }
        FileChannel channel = FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
            java.nio.file.StandardOpenOption.WRITE);
        try {
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_SIZE);
            return new TimerWheel(file, precisionMs, channel, mapped);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public static int slotIndex(long timeMs, long precisionMs) {
        return (int) ((timeMs / precisionMs) % SLOTS);
    }

    /** Byte offset of the slot of {@code timeMs} in the file. */
    public static long slotOffset(long timeMs, long precisionMs) {
        return (long) slotIndex(timeMs, precisionMs) * SLOT_SIZE;
    }

    public long precisionMs() {
        return precisionMs;
    }

    /** The slot of {@code timeMs}, or {@link Slot#EMPTY} when it holds another time or nothing. */
    public synchronized Slot slot(long timeMs) {
        int at = slotIndex(timeMs, precisionMs) * SLOT_SIZE;
        long units = mapped.getLong(at);
        if (units != timeMs / precisionMs) {
            return Slot.EMPTY;
        }
        Slot s = new Slot(units * precisionMs, mapped.getLong(at + 8), mapped.getLong(at + 16), mapped.getInt(at + 24),
            mapped.getInt(at + 28));
        return s.isEmpty() ? Slot.EMPTY : s;
    }

    /** Writes the slot of {@code timeMs}. */
    public synchronized void putSlot(long timeMs, long firstPos, long lastPos, int num, int magic) {
        int at = slotIndex(timeMs, precisionMs) * SLOT_SIZE;
        mapped.putLong(at, timeMs / precisionMs);
        mapped.putLong(at + 8, firstPos);
        mapped.putLong(at + 16, lastPos);
        mapped.putInt(at + 24, num);
        mapped.putInt(at + 28, magic);
    }

    /** Empties the slot of {@code timeMs} (if it holds that time). */
    public synchronized void clearSlot(long timeMs) {
        int at = slotIndex(timeMs, precisionMs) * SLOT_SIZE;
        if (mapped.getLong(at) == timeMs / precisionMs) {
            mapped.putLong(at + 8, -1);
            mapped.putLong(at + 16, -1);
            mapped.putInt(at + 24, 0);
        }
    }

    /** Visits every non-empty slot as stored, whatever its time. Recovery and statistics only. */
    public synchronized void forEachSlot(SlotVisitor visitor) {
        for (int i = 0; i < SLOTS; i++) {
            int at = i * SLOT_SIZE;
            long units = mapped.getLong(at);
            long first = mapped.getLong(at + 8);
            long last = mapped.getLong(at + 16);
            if (units == 0 && first == 0 && last == 0) {
                continue;
            }
            if (first < 0 || last < 0) {
                continue;
            }
            visitor.visit(new Slot(units * precisionMs, first, last, mapped.getInt(at + 24), mapped.getInt(at + 28)),
                units);
        }
    }

    /** Sees one stored slot; {@code storedUnits} is its raw first field (time / precision). */
    @FunctionalInterface
    public interface SlotVisitor {
        void visit(Slot slot, long storedUnits);
    }

    /** The raw first field of the first written slot, or -1 when no slot was ever written (precision inference). */
    public synchronized long firstStoredUnits() {
        for (int i = 0; i < SLOTS; i++) {
            long units = mapped.getLong(i * SLOT_SIZE);
            if (units != 0 || mapped.getLong(i * SLOT_SIZE + 16) != 0) {
                return units;
            }
        }
        return -1;
    }

    public synchronized void flush() {
        if (mapped != null) {
            mapped.force();
        }
    }

    public Path file() {
        return file;
    }

    /** Forces and unmaps the wheel. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (mapped == null) {
            return;
        }
        mapped.force();
        Unmapper.unmap(file.toString(), mapped);
        mapped = null;
        channel.close();
    }
}
