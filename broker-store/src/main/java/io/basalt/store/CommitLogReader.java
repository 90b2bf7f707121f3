package io.basalt.store;


/** The read side of the CommitLog that the read path needs. */
interface CommitLogReader {
    /** A held view of {@code [offset, offset + size)}, or null if not readable (deleted, beyond the end). */
    SelectedBuffer select(long offset, int size);

    long minOffset();

    long maxOffset();

    /** Start of the file after the one holding {@code offset}. */
    long rollNextFile(long offset);

    /** Size of each CommitLog file; a file is named after its start offset (20 digits). */
    int fileSize();
}
