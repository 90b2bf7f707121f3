package io.basalt.store.recovery;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.basalt.store.BrokerMessage;
import io.basalt.store.commitlog.MessageRecordEncoder;
import io.basalt.store.commitlog.RecordFormat;
import io.basalt.store.mappedfile.StoreFiles;

/**
 * Writes CommitLog files the way the CommitLog does (records, END_OF_FILE marker when the next
 * record plus 8 bytes does not fit, files named by their 20-digit base offset, preallocated with
 * zeros), so recovery can be tested on exact bytes. Also the fault injections the tests use.
 */
final class TestLog {
    final Path dir;
    final int fileSize;
    final List<Long> recordOffsets = new ArrayList<>();
    final List<Integer> recordLengths = new ArrayList<>();
    private final MessageRecordEncoder encoder = new MessageRecordEncoder();
    private long writeOffset;

    TestLog(Path dir, int fileSize) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.fileSize = fileSize;
    }

    static BrokerMessage message(int i, int bodyLength) {
        byte[] body = new byte[bodyLength];
        new Random(i).nextBytes(body);
        try {
            return BrokerMessage.builder().topic("T" + (i % 3)).queueId(i % 4).body(body)
                .properties(Map.of("TAGS", "tag" + i, "KEYS", "key" + i)).bornTimestamp(1000 + i)
                .bornHost(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5000))
                .storeHost(new InetSocketAddress(InetAddress.getByName(i % 2 == 0 ? "10.0.0.1" : "::1"), 10911))
                .recordCrc(true).build();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    Path file(long fileFromOffset) {
        return dir.resolve(StoreFiles.fileName(fileFromOffset));
    }

    /** Appends one record (rolling to a new file with an END_OF_FILE marker when needed); returns its offset. */
    long append(BrokerMessage m, long storeTimestamp) throws IOException {
        long fileFrom = writeOffset - writeOffset % fileSize;
        int position = (int) (writeOffset - fileFrom);
        if (position == 0 && !Files.exists(file(fileFrom))) {
            create(fileFrom);
        }
        if (m.recordLength() + RecordFormat.END_FILE_MIN_BLANK_LENGTH > fileSize - position) {
            ByteBuffer marker = ByteBuffer.allocate(8);
            MessageRecordEncoder.writeEndOfFile(marker, fileSize - position);
            write(fileFrom, position, marker.flip());
            writeOffset = fileFrom + fileSize;
            return append(m, storeTimestamp);
        }
        ByteBuffer buf = ByteBuffer.allocate(m.recordLength());
        encoder.encode(m, writeOffset, recordOffsets.size(), storeTimestamp, buf);
        write(fileFrom, position, buf.flip());
        recordOffsets.add(writeOffset);
        recordLengths.add(m.recordLength());
        long at = writeOffset;
        writeOffset += m.recordLength();
        return at;
    }

    long writeOffset() {
        return writeOffset;
    }

    private void create(long fileFrom) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file(fileFrom).toFile(), "rw")) {
            raf.setLength(fileSize);
        }
    }

    private void write(long fileFrom, int position, ByteBuffer data) throws IOException {
        try (FileChannel ch = FileChannel.open(file(fileFrom), StandardOpenOption.WRITE)) {
            while (data.hasRemaining()) {
                ch.write(data, position + data.position());
            }
        }
    }

    List<CommitLogScanner.Segment> segments() throws IOException {
        List<CommitLogScanner.Segment> list = new ArrayList<>();
        try (var stream = Files.list(dir)) {
            stream.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{20}")).sorted()
                .forEach(n -> list.add(new CommitLogScanner.Segment(Long.parseLong(n), dir.resolve(n), fileSize)));
        }
        return list;
    }

    /** Overwrites [offset, offset + length) with the given byte value (0 = zeroed tail). */
    void fill(long offset, int length, byte value) throws IOException {
        long fileFrom = offset - offset % fileSize;
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, value);
        write(fileFrom, (int) (offset - fileFrom), ByteBuffer.wrap(bytes));
    }

    /** Overwrites [offset, offset + length) with random bytes. */
    void garbage(long offset, int length, long seed) throws IOException {
        long fileFrom = offset - offset % fileSize;
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        write(fileFrom, (int) (offset - fileFrom), ByteBuffer.wrap(bytes));
    }

    /** Zeroes everything from {@code offset} to the end of its file (a write that never reached the disk). */
    void zeroFrom(long offset) throws IOException {
        long fileFrom = offset - offset % fileSize;
        fill(offset, (int) (fileFrom + fileSize - offset), (byte) 0);
    }

    /**
     * A torn tail: zeroes everything from {@code offset} on, in its file and every later one (writes
     * that never reached the disk; nothing valid follows).
     */
    void tearFrom(long offset) throws IOException {
        zeroFrom(offset);
        for (long from = offset - offset % fileSize + fileSize; java.nio.file.Files.exists(file(from)); from += fileSize) {
            fill(from, fileSize, (byte) 0);
        }
    }

    /** Index of the last record that ends at or before {@code endOffset}, plus one. */
    int recordsBefore(long endOffset) {
        int n = 0;
        while (n < recordOffsets.size() && recordOffsets.get(n) + recordLengths.get(n) <= endOffset) {
            n++;
        }
        return n;
    }
}
