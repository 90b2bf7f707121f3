package io.basalt.ha;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The master generations (epochs) a store's CommitLog went through: each entry says "epoch E's
 * master wrote from physical offset S on". A master appends an entry when it is promoted; a slave
 * adopts its master's list. Comparing two lists finds where their logs may have diverged
 * ({@link #lastCommonOffset}).
 *
 * <p>File {@code haEpoch} in the store root, text, one entry a line: {@code <epoch> <startOffset>},
 * epochs strictly increasing. Written atomically (temp file, fsync, rename, directory fsync).
 * One writer at a time (the HA endpoint serialises changes); readers on other threads see the
 * latest complete list.
 */
public final class EpochFile {
    public static final String FILE_NAME = "haEpoch";

    /** One generation: {@code epoch}'s master wrote from {@code startOffset} on. */
    public record Entry(long epoch, long startOffset) {
    }

    private final Path file;
    private volatile List<Entry> entries;

    private EpochFile(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** Reads {@code <rootDir>/haEpoch}; an absent file is an empty history. */
    public static EpochFile open(Path rootDir) throws IOException {
        Path file = rootDir.resolve(FILE_NAME);
        List<Entry> entries = new ArrayList<>();
        if (Files.exists(file)) {
            int lineNo = 0;
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String[] parts = line.trim().split("\\s+");
                if (parts.length != 2) {
                    throw new IOException(file + " line " + lineNo + ": expected '<epoch> <startOffset>', was '" + line + "'");
                }
                try {
                    entries.add(new Entry(Long.parseLong(parts[0]), Long.parseLong(parts[1])));
                } catch (NumberFormatException e) {
                    throw new IOException(file + " line " + lineNo + ": not numbers: '" + line + "'", e);
                }
            }
            checkOrder(entries, file.toString());
        }
        return new EpochFile(file, List.copyOf(entries));
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The newest epoch, 0 for an empty history. */
    public long lastEpoch() {
        return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).epoch();
    }

    /** Starts a new generation at {@code startOffset} (promotion, or a first master start); returns its epoch. */
    public long startEpoch(long startOffset) throws IOException {
        long epoch = lastEpoch() + 1;
        List<Entry> next = new ArrayList<>(entries);
        next.add(new Entry(epoch, startOffset));
        replaceWith(next);
        return epoch;
    }

    /**
     * Starts generation {@code epoch}, an epoch given from outside (the RocketMQ Controller's masterEpoch), at
     * {@code startOffset}; nothing when it is the last one already.
     *
     * @throws IOException when {@code epoch} is older than the last one, or the file cannot be written
     */
    public void startEpoch(long epoch, long startOffset) throws IOException {
        long last = lastEpoch();
        if (epoch == last && !entries.isEmpty()) {
            return;
        }
        if (epoch <= last) {
            throw new IOException("epoch " + epoch + " is not newer than the last recorded one, " + last);
        }
        List<Entry> next = new ArrayList<>(entries);
        next.add(new Entry(epoch, startOffset));
        replaceWith(next);
    }

    /** Adopts {@code next} (a slave taking its master's history). */
    public void replaceWith(List<Entry> next) throws IOException {
        checkOrder(next, "new epoch list");
        if (next.equals(entries)) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (Entry e : next) {
            text.append(e.epoch()).append(' ').append(e.startOffset()).append('\n');
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(StandardCharsets.US_ASCII.encode(text.toString()));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException ignored) {
            // some file systems cannot open a directory for fsync; the rename is still atomic
        }
        entries = List.copyOf(next);
    }

    /**
     * The highest offset up to which two logs with these histories hold the same bytes: the end of
     * the newest generation both lists share (same epoch, same start), on the side that wrote less of
     * it. -1 when they share no generation. An empty slave history shares everything up to both ends
     * (a store from before epochs, or a fresh slave).
     */
    public static long lastCommonOffset(List<Entry> master, long masterMax, List<Entry> slave, long slaveMax) {
        if (slave.isEmpty()) {
            return Math.min(masterMax, slaveMax);
        }
        for (int i = slave.size() - 1; i >= 0; i--) {
            Entry s = slave.get(i);
            int j = master.indexOf(s);
            if (j < 0) {
                continue;
            }
            long slaveEnd = i + 1 < slave.size() ? slave.get(i + 1).startOffset() : slaveMax;
            long masterEnd = j + 1 < master.size() ? master.get(j + 1).startOffset() : masterMax;
            return Math.min(slaveEnd, masterEnd);
        }
        return -1;
    }

    private static void checkOrder(List<Entry> list, String what) throws IOException {
        for (int i = 1; i < list.size(); i++) {
            if (list.get(i).epoch() <= list.get(i - 1).epoch() || list.get(i).startOffset() < list.get(i - 1).startOffset()) {
                throw new IOException(what + ": epochs must increase and start offsets must not decrease at entry " + i);
            }
        }
    }
}
