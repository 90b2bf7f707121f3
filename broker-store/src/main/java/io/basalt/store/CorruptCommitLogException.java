package io.basalt.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Start-up refused: the CommitLog holds a record that fails its checks where recovery must not cut
 * (below the checkpoint's durable point, or with valid records after it). Cutting there would
 * silently drop acknowledged messages; the operator decides instead, e.g. by restoring the file or
 * setting {@code recoverySkipCorruptRecords=true} to skip the bad record and keep the ones after it.
 * Thrown by {@link MessageStore#load()} on the start-up thread.
 */
public final class CorruptCommitLogException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    public CorruptCommitLogException(Path file, long offset, long positionInFile, String reason, String after) {
        super("CommitLog file " + file + " is corrupt at offset " + offset + " (position " + positionInFile
            + " in the file): " + reason + "; " + after + ". Start-up stopped so that no acknowledged message is "
            + "dropped: restore the file, or set recoverySkipCorruptRecords=true to skip the corrupt record and keep "
            + "the records after it");
        this.file = file;
        this.offset = offset;
    }

    /** The CommitLog file holding the corrupt record. */
    public Path file() {
        return file;
    }

    /** The CommitLog offset of the corrupt record. */
    public long offset() {
        return offset;
    }
}
