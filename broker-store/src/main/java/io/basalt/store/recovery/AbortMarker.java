package io.basalt.store.recovery;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * RocketMQ's {@code abort} file in the store root: created when the store starts, deleted as the
 * last step of a clean shutdown. Found at start-up, it means the previous run did not shut down
 * cleanly and the CommitLog needs a crash recovery. Creation and deletion fsync the directory so
 * the marker's presence is itself durable.
 *
 * <p>Used by the store's start-up and shutdown thread only.
 */
public final class AbortMarker {
    public static final String FILE_NAME = "abort";

    private final Path file;

    /** The marker at {@code file} (normally {@code <storePathRootDir>/abort}). */
    public AbortMarker(Path file) {
        this.file = file;
    }

    /** The marker of the store whose root directory is {@code storeRootDir}. */
    public static AbortMarker in(Path storeRootDir) {
        return new AbortMarker(storeRootDir.resolve(FILE_NAME));
    }

    public Path file() {
        return file;
    }

    /** True when the marker is present: the last run ended without a clean shutdown. */
    public boolean exists() {
        return Files.exists(file);
    }

    /** Creates the marker (keeping one left by a crash) and fsyncs the directory. */
    public void create() throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        forceDirectory(dir);
    }

    /** Deletes the marker (the end of a clean shutdown) and fsyncs the directory. */
    public void delete() throws IOException {
        if (Files.deleteIfExists(file)) {
            forceDirectory(file.toAbsolutePath().getParent());
        }
    }

    /** fsync of a directory, so that a created, renamed or deleted entry survives a crash. */
    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
