package io.basalt.common.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Durability of directory entries: a created, renamed or deleted file survives a crash only once its directory is synced. */
public final class Directories {
    private Directories() {
    }

    /**
     * Forces {@code dir}'s entries to disk (fsync of the directory), after a file in it was created,
     * renamed or deleted. A file system that refuses to open or sync a directory (some do) is
     * tolerated: there the file data, which callers force themselves, is all that can be synced.
     * A {@code dir} that is not a directory fails.
     */
    public static void fsync(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (Files.isDirectory(dir)) {
                return;
            }
            throw e;
        }
    }

    /**
     * Replaces {@code file} with {@code content} so that a crash leaves either the old or the new content: written
     * to {@code <file>.tmp}, forced, renamed over the file, the directory forced.
     */
    public static void replaceDurably(Path file, byte[] content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
        Files.move(temp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        fsync(dir);
    }
}
