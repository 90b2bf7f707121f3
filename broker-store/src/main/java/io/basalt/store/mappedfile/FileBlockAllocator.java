package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Gives a store file real disk blocks for its whole length before anything writes into it, so that a
 * full disk shows up as an {@link IOException} (ENOSPC) here, on the thread that asked, and never as
 * SIGBUS in a mapped write (which the JVM turns into an InternalError) or as a failed write into a
 * hole halfway through a batch. Uses fallocate (blocks already there cost nothing, so calling it on
 * an allocated file is cheap); where fallocate is unsupported, writes zeros into the file's range.
 * Stateless; any thread.
 */
public final class FileBlockAllocator {
    private static final int ENOSPC = 28;
    private static final int ZERO_CHUNK = 64 * 1024;

    private FileBlockAllocator() {
    }

    /**
     * Allocates the blocks of {@code [0, length)} of the existing file {@code file} (extending it to
     * {@code length} if shorter) without changing the bytes it holds.
     *
     * @throws IOException naming the file, "no space left on device" when the disk is full
     */
    public static void allocate(Path file, long length) throws IOException {
        allocate(file, 0, length);
    }

    /**
     * As {@link #allocate(Path, long)} for the blocks of {@code [from, from + length)}.
     *
     * @throws IOException naming the file, "no space left on device" when the disk is full
     */
    public static void allocate(Path file, long from, long length) throws IOException {
        int errno = NativeIO.fallocate(file, from, length);
        if (errno == 0) {
            return;
        }
        if (errno != NativeIO.FALLOCATE_UNSUPPORTED) {
            throw new IOException("allocating bytes [" + from + ", " + (from + length) + ") of " + file
                + " failed: errno " + errno + (errno == ENOSPC ? " (No space left on device)" : ""));
        }
        zeroFillHoles(file, from, from + length);
    }

    /**
     * Without fallocate: rewrites the existing bytes of {@code [from, to)} and zeros the rest (reads and
     * writes back each chunk).
     */
    private static void zeroFillHoles(Path file, long from, long to) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer chunk = ByteBuffer.allocate(ZERO_CHUNK);
            long size = ch.size();
            for (long pos = from; pos < to; pos += ZERO_CHUNK) {
                Arrays.fill(chunk.array(), (byte) 0);
                chunk.clear().limit((int) Math.min(ZERO_CHUNK, to - pos));
                while (pos < size && chunk.hasRemaining() && ch.read(chunk, pos + chunk.position()) > 0) {
                    // keeps what is there; past the end of the file the chunk stays zero
                }
                chunk.position(0);
                while (chunk.hasRemaining()) {
                    ch.write(chunk, pos + chunk.position());
                }
            }
            ch.force(true);
        }
    }
}
