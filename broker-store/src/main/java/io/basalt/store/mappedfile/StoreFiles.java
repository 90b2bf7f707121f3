package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import io.basalt.common.io.Directories;

/**
 * Names and removal of the store's segment files, as RocketMQ lays them out: a CommitLog or
 * ConsumeQueue file is named by the offset of its first byte, 20 decimal digits
 * ({@code 00000000001073741824}). A file is removed in two steps, renamed to {@code <name>.delete}
 * and then deleted, each followed by an fsync of its directory, so a crash in between leaves a
 * {@code .delete} file that opening the directory removes, never a half-deleted segment under its
 * real name. Stateless; any thread.
 */
public final class StoreFiles {
    /** The suffix of a file being deleted. */
    public static final String DELETE_SUFFIX = ".delete";
    /** Length of a segment file name. */
    public static final int FILE_NAME_LENGTH = 20;

    private StoreFiles() {
    }

    /** The file name of the segment starting at offset {@code fileFromOffset}. */
    public static String fileName(long fileFromOffset) {
        if (fileFromOffset < 0) {
            throw new IllegalArgumentException("negative file offset " + fileFromOffset);
        }
        return String.format("%020d", fileFromOffset);
    }

    /** The offset a file name stands for, or -1 unless it is exactly 20 decimal digits. */
    public static long parseFileName(String name) {
        if (name.length() != FILE_NAME_LENGTH) {
            return -1;
        }
        for (int i = 0; i < FILE_NAME_LENGTH; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(name);
        } catch (NumberFormatException e) {
            return -1;   // 20 digits above Long.MAX_VALUE
        }
    }

    /** True for what a deletion interrupted by a crash left behind. */
    public static boolean isDeleteLeftover(Path file) {
        return file.getFileName().toString().endsWith(DELETE_SUFFIX);
    }

    /** Renames {@code file} to {@code <name>.delete} atomically and syncs its directory; returns the new path. */
    public static Path renameForDelete(Path file) throws IOException {
        Path target = file.resolveSibling(file.getFileName() + DELETE_SUFFIX);
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
        Directories.fsync(file.toAbsolutePath().getParent());
        return target;
    }

    /** Deletes {@code file} if it exists and syncs its directory. */
    public static void deleteAndSync(Path file) throws IOException {
        Files.deleteIfExists(file);
        Directories.fsync(file.toAbsolutePath().getParent());
    }

    /** Both steps of a removal: rename to {@code .delete}, then delete. The file must be closed and unmapped. */
    public static void delete(Path file) throws IOException {
        deleteAndSync(renameForDelete(file));
    }
}
