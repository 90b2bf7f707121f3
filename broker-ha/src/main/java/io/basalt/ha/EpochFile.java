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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master generations (epochs) a store's CommitLog went through: each entry says "epoch E's
 * master wrote from physical offset S on". A master appends an entry when it is promoted; a slave
 * adopts its master's list. Comparing two lists finds where their logs may have diverged
 * ({@link #lastCommonOffset}).
 *
 * <p>On disk: RocketMQ 5.2.0's {@code epochFileCheckpoint} ({@code storePathEpochFile}, default
 * {@code <storePathRootDir>/epochFileCheckpoint}), the text layout of its {@code CheckpointFile}: line 1 the
 * number of entries, line 2 the CRC32 of the entry lines (the UTF-8 bytes of every entry line followed by the
 * platform line separator, as RocketMQ's {@code UtilAll.crc32}: the CRC's low 31 bits; 0 means unchecked), then
 * one line {@code <epoch>-<startOffset>} per entry, epochs strictly increasing and within a Java {@code int}
 * (RocketMQ's type). Before each rewrite the previous list is written to {@code epochFileCheckpoint.bak};
 * a primary file that is absent, empty or bad is replaced by a good {@code .bak} (RocketMQ reads it the same
 * way), and with no good copy at all the store does not open. Unlike RocketMQ, each file is replaced
 * atomically (temp file, fsync, rename, directory fsync), so a crash leaves the old or the new list, never a
 * torn one; an empty list removes both files (RocketMQ would otherwise read the stale {@code .bak}).
 *
 * <p>A store written by an older Basalt holds the list in {@code haEpoch} ({@code <epoch> <startOffset>} lines);
 * it is converted when the store opens. One writer at a time (the HA endpoint serialises changes); readers on
 * other threads see the latest complete list.
 */
public final class EpochFile {
    private static final Logger LOG = LoggerFactory.getLogger(EpochFile.class);

    /** RocketMQ's default file name, in the store root. */
    public static final String FILE_NAME = "epochFileCheckpoint";
    /** The copy of the previous list, beside the file: {@code <file>.bak}. */
    public static final String BACKUP_SUFFIX = ".bak";
    /** The file of older Basalt versions, in the store root; converted at open. */
    public static final String LEGACY_FILE_NAME = "haEpoch";

    private static final Pattern ENTRY_LINE = Pattern.compile("(\\d{1,10})-(\\d{1,19})");

    /** One generation: {@code epoch}'s master wrote from {@code startOffset} on. */
    public record Entry(long epoch, long startOffset) {
    }

    private final Path file;
    private volatile List<Entry> entries;

    private EpochFile(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** Opens {@code <rootDir>/epochFileCheckpoint} (RocketMQ's default {@code storePathEpochFile}). */
    public static EpochFile open(Path rootDir) throws IOException {
        return open(rootDir, rootDir.resolve(FILE_NAME));
    }

    /**
     * Opens the epoch list at {@code file} ({@code storePathEpochFile}); an absent file (and backup) is an empty
     * history. A {@code haEpoch} of an older Basalt in {@code rootDir} is converted first when {@code file} does
     * not exist yet.
     *
     * @throws IOException when neither the file nor its {@code .bak} holds a valid list (the message names both
     *                     and what is wrong with each), or when a leftover {@code haEpoch} disagrees with the file
     */
    public static EpochFile open(Path rootDir, Path file) throws IOException {
        Path legacy = rootDir.resolve(LEGACY_FILE_NAME);
        Path backup = backupOf(file);
        boolean legacyExists = Files.exists(legacy);
        if (legacyExists && !Files.exists(file) && !Files.exists(backup)) {
            return convert(legacy, file);
        }
        EpochFile opened = new EpochFile(file, load(file, backup));
        if (legacyExists) {
            List<Entry> old = readLegacy(legacy);
            if (!old.equals(opened.entries)) {
                throw new IOException(legacy + " (an older Basalt's epoch list) and " + file + " disagree: " + old
                    + " vs " + opened.entries + "; remove the one that is stale before starting");
            }
            Files.delete(legacy);
            syncDirectory(legacy.toAbsolutePath().getParent());
            LOG.info("Removed {}: {} holds the same epoch list", legacy, file);
        }
        return opened;
    }

    /** The primary file ({@code storePathEpochFile}). */
    public Path path() {
        return file;
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The newest epoch, 0 for an empty history. */
    public long lastEpoch() {
        List<Entry> list = entries;
        return list.isEmpty() ? 0 : list.get(list.size() - 1).epoch();
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
    public synchronized void replaceWith(List<Entry> next) throws IOException {
        check(next, "new epoch list");
        List<Entry> previous = entries;
        if (next.equals(previous)) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path backup = backupOf(file);
        if (next.isEmpty()) {
            Files.deleteIfExists(file);
            Files.deleteIfExists(backup);
        } else {
            if (!previous.isEmpty()) {
                // no fsync of its own: it repeats the primary, which is on disk already and is replaced only
                // by an fsynced rename; the backup is read only when the primary is unreadable
                writeAtomically(backup, format(previous), false);
            }
            writeAtomically(file, format(next), true);
        }
        syncDirectory(dir);
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

    /** The text of {@code list} in RocketMQ's {@code CheckpointFile} layout. */
    static String format(List<Entry> list) {
        String sep = System.lineSeparator();
        StringBuilder lines = new StringBuilder();
        for (Entry e : list) {
            lines.append(e.epoch()).append('-').append(e.startOffset()).append(sep);
        }
        return list.size() + sep + crc(lines.toString()) + sep + lines;
    }

    /** RocketMQ's {@code UtilAll.crc32}: CRC32 of the UTF-8 bytes, low 31 bits. */
    static int crc(String entryLines) {
        CRC32 crc = new CRC32();
        crc.update(entryLines.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }

    static Path backupOf(Path file) {
        return file.resolveSibling(file.getFileName() + BACKUP_SUFFIX);
    }

    /**
     * The list to use, read as RocketMQ's {@code CheckpointFile.read} does: the primary's when it is good and not
     * empty, else the backup's; refuses when the primary is bad and no good backup replaces it, or a backup
     * that would be read is bad.
     */
    private static List<Entry> load(Path file, Path backup) throws IOException {
        String primaryState;
        try {
            List<Entry> primary = parse(file);
            if (!primary.isEmpty()) {
                return primary;
            }
            primaryState = Files.exists(file) ? "without entries" : "absent";
        } catch (IOException e) {
            primaryState = null;
            if (!Files.exists(backup)) {
                throw new IOException("Epoch file " + file + " is unreadable (" + e.getMessage() + ") and its backup "
                    + backup + " does not exist; restore one of them, or remove " + file + " to start this replica"
                    + " with an empty epoch history (it then copies its master's log again)", e);
            }
            try {
                List<Entry> fromBackup = parse(backup);
                if (fromBackup.isEmpty()) {
                    throw new IOException("it holds no entries");
                }
                LOG.warn("Epoch file {} is unreadable ({}); using its backup {} ({} entries)", file, e.getMessage(),
                    backup, fromBackup.size());
                return fromBackup;
            } catch (IOException b) {
                throw new IOException("Epoch file " + file + " is unreadable (" + e.getMessage() + ") and its backup "
                    + backup + " is unusable too (" + b.getMessage() + "); restore one of them, or remove both to"
                    + " start this replica with an empty epoch history (it then copies its master's log again)", b);
            }
        }
        if (!Files.exists(backup)) {
            return List.of();
        }
        try {
            List<Entry> fromBackup = parse(backup);
            if (!fromBackup.isEmpty()) {
                LOG.warn("Epoch file {} is {}; using its backup {} ({} entries)", file, primaryState, backup,
                    fromBackup.size());
            }
            return fromBackup;
        } catch (IOException b) {
            throw new IOException("Epoch file " + file + " is " + primaryState + " and its backup " + backup
                + " is unreadable (" + b.getMessage() + "); restore one of them, or remove both to start this replica"
                + " with an empty epoch history (it then copies its master's log again)", b);
        }
    }

    /** The entries of one checkpoint file, empty when it does not exist. */
    private static List<Entry> parse(Path path) throws IOException {
        if (!Files.exists(path)) {
            return List.of();
        }
        String text = Files.readString(path, StandardCharsets.UTF_8);
        String[] lines = text.split("\r?\n", -1);
        int n = lines.length;
        if (n > 0 && lines[n - 1].isEmpty()) {
            n--; // the separator after the last line
        }
        if (n < 2) {
            throw new IOException("expected the entry count and the CRC32 on the first two lines");
        }
        int expected;
        int expectedCrc;
        try {
            expected = Integer.parseInt(lines[0].trim());
            expectedCrc = Integer.parseInt(lines[1].trim());
        } catch (NumberFormatException e) {
            throw new IOException("line 1 (entry count) and line 2 (CRC32) must be numbers, were '" + lines[0]
                + "' and '" + lines[1] + "'");
        }
        String sep = System.lineSeparator();
        StringBuilder entryLines = new StringBuilder();
        List<Entry> list = new ArrayList<>();
        for (int i = 2; i < n; i++) {
            entryLines.append(lines[i]).append(sep);
            Matcher m = ENTRY_LINE.matcher(lines[i]);
            if (!m.matches()) {
                throw new IOException("line " + (i + 1) + ": expected '<epoch>-<startOffset>', was '" + lines[i] + "'");
            }
            try {
                list.add(new Entry(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2))));
            } catch (NumberFormatException e) {
                throw new IOException("line " + (i + 1) + ": epoch or offset out of range: '" + lines[i] + "'");
            }
        }
        if (list.size() != expected) {
            throw new IOException("line 1 says " + expected + " entries, the file has " + list.size());
        }
        int actualCrc = crc(entryLines.toString());
        if (expectedCrc != 0 && expectedCrc != actualCrc) {
            throw new IOException("CRC32 of the entries is " + actualCrc + ", line 2 says " + expectedCrc);
        }
        check(list, path.toString());
        return List.copyOf(list);
    }

    /** Converts an older Basalt's {@code haEpoch} into {@code file}: write, fsync, then delete the old file. */
    private static EpochFile convert(Path legacy, Path file) throws IOException {
        List<Entry> old = readLegacy(legacy);
        EpochFile converted = new EpochFile(file, List.of());
        converted.replaceWith(old);
        Files.delete(legacy);
        syncDirectory(legacy.toAbsolutePath().getParent());
        LOG.info("Converted {} ({} epochs, last {}) to RocketMQ's epoch file {}", legacy, old.size(),
            converted.lastEpoch(), file);
        return converted;
    }

    private static List<Entry> readLegacy(Path legacy) throws IOException {
        List<Entry> list = new ArrayList<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(legacy, StandardCharsets.US_ASCII)) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split("\\s+");
            if (parts.length != 2) {
                throw new IOException(legacy + " line " + lineNo + ": expected '<epoch> <startOffset>', was '" + line + "'");
            }
            try {
                list.add(new Entry(Long.parseLong(parts[0]), Long.parseLong(parts[1])));
            } catch (NumberFormatException e) {
                throw new IOException(legacy + " line " + lineNo + ": not numbers: '" + line + "'", e);
            }
        }
        check(list, legacy.toString());
        return list;
    }

    private static void writeAtomically(Path target, String text, boolean force) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(StandardCharsets.UTF_8.encode(text));
            if (force) {
                ch.force(true);
            }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void syncDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException ignored) {
            // some file systems cannot open a directory for fsync; the rename is still atomic
        }
    }

    private static void check(List<Entry> list, String what) throws IOException {
        for (int i = 0; i < list.size(); i++) {
            Entry e = list.get(i);
            if (e.epoch() < 0 || e.epoch() > Integer.MAX_VALUE || e.startOffset() < 0) {
                throw new IOException(what + ": entry " + i + " " + e + " is out of range (epochs are RocketMQ ints"
                    + " from 0 to " + Integer.MAX_VALUE + ", offsets are not negative)");
            }
            if (i > 0 && (e.epoch() <= list.get(i - 1).epoch() || e.startOffset() < list.get(i - 1).startOffset())) {
                throw new IOException(what + ": epochs must increase and start offsets must not decrease at entry " + i);
            }
        }
    }
}
