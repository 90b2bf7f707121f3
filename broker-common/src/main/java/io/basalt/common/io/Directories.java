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
}
