package io.basalt.store.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.basalt.common.io.Directories;
import io.basalt.store.mappedfile.FileBlockAllocator;
import io.basalt.store.mappedfile.StoreFiles;

/**
 * One ConsumeQueue file: {@code fileSize} bytes of 20-byte entries, named by the 20-digit logical
 * byte offset of its first entry (entry index × 20), as RocketMQ names them.
 *
 * <p>Reads and writes go through positional {@link FileChannel} calls (pread/pwrite) instead of a
 * mapping: a lookup touches one 4 KiB page without mmap fault read-ahead (docs/pain-points.md#pp-17), and a
 * file can be closed and deleted while a reader is in a call; that reader gets
 * {@link ClosedChannelException} and treats the entries as gone, no reader can crash on an unmapped
 * page. One writer (the dispatcher or recovery); any number of readers.
 */
final class ConsumeQueueFile {
    private final Path path;
    private final long fileFromOffset;
    private final int fileSize;
    private final FileChannel channel;
    private volatile boolean dirty;

    private ConsumeQueueFile(Path path, long fileFromOffset, int fileSize, FileChannel channel) {
        this.path = path;
        this.fileFromOffset = fileFromOffset;
        this.fileSize = fileSize;
        this.channel = channel;
    }

    /** Opens an existing file, or creates it with {@code fileSize} zero bytes (unwritten entries are zeros). */
    static ConsumeQueueFile open(Path dir, long fileFromOffset, int fileSize) throws IOException {
        Path path = dir.resolve(StoreFiles.fileName(fileFromOffset));
        boolean created = !Files.exists(path);
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            long length = channel.size();
            if (created || length == 0) {
                // Same size as RocketMQ's preallocated mapping, so RocketMQ's size check accepts it.
                channel.write(ByteBuffer.wrap(new byte[1]), fileSize - 1L);
                // real blocks now: a full disk fails this open, never an entry write halfway through a batch
                FileBlockAllocator.allocate(path, fileSize);
                channel.force(true);
                Directories.fsync(dir);
            } else if (length != fileSize) {
                throw new IOException("ConsumeQueue file " + path + " has " + length
                        + " bytes, mappedFileSizeConsumeQueue says " + fileSize);
            }
        } catch (IOException e) {
            channel.close();
            if (created) {
                Files.deleteIfExists(path);
            }
            throw e;
        }
        return new ConsumeQueueFile(path, fileFromOffset, fileSize, channel);
    }

    Path path() {
        return path;
    }

    long fileFromOffset() {
        return fileFromOffset;
    }

    int fileSize() {
        return fileSize;
    }

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code position}; returns the bytes read, or -1
     * when the file has been closed (deleted by retention or truncation) under the reader.
     */
    int read(int position, ByteBuffer dst) {
        int total = 0;
        try {
            while (dst.hasRemaining() && position + total < fileSize) {
                int n = channel.read(dst, (long) position + total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        } catch (ClosedChannelException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("read of ConsumeQueue file " + path + " at " + position + " failed", e);
        }
    }

    void write(int position, ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            position += channel.write(src, position);
        }
        dirty = true;
    }

    /** Zeroes the bytes from {@code position} to the end of the file. */
    void zeroFrom(int position) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
        int at = position;
        while (at < fileSize) {
            zeros.clear().limit(Math.min(zeros.capacity(), fileSize - at));
            write(at, zeros);
            at += zeros.limit();
        }
    }

    void flush() throws IOException {
        if (dirty) {
            dirty = false;
            channel.force(false);
        }
    }

    void close() throws IOException {
        channel.close();
    }

    /** Closes, renames to {@code .delete} and removes the file (a crash in between leaves only a .delete file). */
    void delete() throws IOException {
        channel.close();
        StoreFiles.delete(path);
    }
}
