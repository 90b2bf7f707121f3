package io.basalt.store.recovery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.StoredMessage;
import io.basalt.store.mappedfile.StoreFiles;

/** File-level helpers of the crash tests: copy a live store, inject faults, read back what a log holds. */
final class CrashFiles {
    /** CommitLog file size of the crash tests. */
    static final int FILE_SIZE = 1024 * 1024;

    private CrashFiles() {
    }

    /** The store configuration of the crash tests: small files, no warm-up. */
    static StoreConfig config(Path root, FlushDiskType flushDiskType, boolean transientStorePool) {
        return StoreConfig.builder().storePathRootDir(root.toString()).mappedFileSizeCommitLog(FILE_SIZE)
            .flushDiskType(flushDiskType).transientStorePoolEnable(transientStorePool).warmMapedFileEnable(false)
            .maxMessageSize(64 * 1024).build();
    }

    /** What a CommitLog directory holds, read straight from the files. */
    record Contents(List<StoredMessage> messages, List<Long> recordStarts, List<Long> recordEnds, long end) {
    }

    static List<Path> commitLogFiles(Path commitLogDir) throws IOException {
        try (var s = Files.list(commitLogDir)) {
            return s.filter(p -> StoreFiles.parseFileName(p.getFileName().toString()) >= 0).sorted().toList();
        }
    }

    /**
     * Copies a running store the way a crash leaves it: checkpoint first, then the abort marker, then the
     * CommitLog files in order. Everything the checkpoint calls durable was in the page cache before
     * the copy of the log began, so the copy is a state a real crash could leave.
     */
    static void copyRunningStore(Path root, Path copy) throws IOException {
        Files.createDirectories(copy.resolve("commitlog"));
        for (String name : new String[] {StoreCheckpoint.FILE_NAME, AbortMarker.FILE_NAME}) {
            if (Files.exists(root.resolve(name))) {
                Files.copy(root.resolve(name), copy.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        for (Path file : commitLogFiles(root.resolve("commitlog"))) {
            Files.copy(file, copy.resolve("commitlog").resolve(file.getFileName()));
        }
    }

    /** Zeroes the log from {@code offset} on: the rest of its file and all later files (which stay, preallocated). */
    static void zeroFrom(Path commitLogDir, int fileSize, long offset) throws IOException {
        for (Path file : commitLogFiles(commitLogDir)) {
            long from = StoreFiles.parseFileName(file.getFileName().toString());
            if (from + fileSize <= offset) {
                continue;
            }
            int position = (int) Math.max(0, offset - from);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ByteBuffer zeros = ByteBuffer.allocate(fileSize - position);
                while (zeros.hasRemaining()) {
                    ch.write(zeros, position + zeros.position());
                }
            }
        }
    }

    /** Writes {@code length} random bytes at {@code offset}, clipped to its file (a torn write of garbage). */
    static void garbageAt(Path commitLogDir, int fileSize, long offset, int length, Random random) throws IOException {
        long from = offset - offset % fileSize;
        Path file = commitLogDir.resolve(StoreFiles.fileName(from));
        int position = (int) (offset - from);
        byte[] bytes = new byte[Math.min(length, fileSize - position)];
        random.nextBytes(bytes);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b, position + b.position());
            }
        }
    }

    /** Reads every valid record from offset 0, as recovery would accept them (CRC checked). */
    static Contents read(Path commitLogDir, int fileSize) throws IOException {
        MessageRecordDecoder decoder = new MessageRecordDecoder();
        List<StoredMessage> messages = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        long end = 0;
        for (Path file : commitLogFiles(commitLogDir)) {
            long from = StoreFiles.parseFileName(file.getFileName().toString());
            if (from != end) {
                break;
            }
            ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
            boolean complete = false;
            while (true) {
                RecordCheck c = decoder.check(buf, true);
                if (c.isOk() && c.physicalOffset() == from + buf.position()) {
                    starts.add(from + buf.position());
                    messages.add(MessageRecordDecoder.decode(buf));
                    ends.add(from + buf.position());
                } else if (c.status() == RecordCheck.Status.END_OF_FILE && buf.position() + c.size() == fileSize) {
                    complete = true;
                    break;
                } else {
                    break;
                }
            }
            end = complete ? from + fileSize : from + buf.position();
            if (!complete) {
                break;
            }
        }
        return new Contents(messages, starts, ends, end);
    }

    /**
     * True when every record of {@code live} that ends at or before {@code end} has identical bytes in
     * both logs. The padding behind an END_OF_FILE marker is no record: garbage there is harmless, as
     * recovery and readers skip to the next file, so it is not compared.
     */
    static boolean samePrefix(Contents live, Path logA, Path logB, int fileSize, long end) throws IOException {
        byte[] a = null;
        byte[] b = null;
        long loadedFrom = -1;
        for (int i = 0; i < live.recordStarts().size() && live.recordEnds().get(i) <= end; i++) {
            long start = live.recordStarts().get(i);
            long from = start - start % fileSize;
            if (from != loadedFrom) {
                String name = StoreFiles.fileName(from);
                a = Files.readAllBytes(logA.resolve(name));
                b = Files.readAllBytes(logB.resolve(name));
                loadedFrom = from;
            }
            int position = (int) (start - from);
            int length = (int) (live.recordEnds().get(i) - start);
            if (!Arrays.equals(a, position, position + length, b, position, position + length)) {
                return false;
            }
        }
        return true;
    }
}
